package io.commitlane.txlog;

/** A {@link LogSettings} value is out of range; the message names the field and its range. */
public final class InvalidLogSettingException extends TransactionLogException {
  private static final long serialVersionUID = 1L;

  private final String field;
  private final String allowedRange;

  public InvalidLogSettingException(String field, Object value, String allowedRange) {
    super("invalid txlog setting " + field + " = " + value + "; allowed: " + allowedRange);
    this.field = field;
    this.allowedRange = allowedRange;
  }

  /** The name of the invalid setting, as spelled in {@link LogSettings} ({@code maxSegmentBytes}). */
  public String field() {
    return field;
  }

  /** The allowed values, in words. */
  public String allowedRange() {
    return allowedRange;
  }
}
