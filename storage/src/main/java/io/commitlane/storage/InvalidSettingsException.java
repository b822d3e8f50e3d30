package io.commitlane.storage;

import java.util.List;
import java.util.stream.Collectors;

/**
 * One or more settings are invalid. Settings are validated whole before any is applied, so when
 * this is thrown nothing changed. {@link #errors()} names every bad field with its allowed range.
 */
public final class InvalidSettingsException extends CommitlaneException {
  /** One bad field: its name, the value given and what is allowed. */
  public record SettingError(String field, Object value, String allowed) {
    @Override
    public String toString() {
      return field + " = " + render(value) + ": " + allowed;
    }

    private static String render(Object v) {
      return v instanceof String s ? '"' + s + '"' : String.valueOf(v);
    }
  }

  private final List<SettingError> errors;

  public InvalidSettingsException(List<SettingError> errors) {
    super("invalid settings, nothing was applied: "
        + errors.stream().map(SettingError::toString).collect(Collectors.joining("; ")));
    this.errors = List.copyOf(errors);
  }

  public List<SettingError> errors() {
    return errors;
  }

  /** The names of the bad fields, in the order they were found. */
  public List<String> fields() {
    return errors.stream().map(SettingError::field).toList();
  }
}
