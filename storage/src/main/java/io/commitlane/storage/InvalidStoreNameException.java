package io.commitlane.storage;

/**
 * A store name that cannot be used for what was asked: not 1..{@value StoreNames#MAX_BYTES} UTF-8
 * bytes, containing a control character, or {@code default} given to a drop (every database keeps
 * its default store). Nothing was changed. Not retryable with the same name.
 */
public final class InvalidStoreNameException extends CommitlaneException {
  private final String name;

  public InvalidStoreNameException(String name, String reason) {
    super("invalid store name " + (name == null ? "null" : "'" + name + "'") + ": " + reason + "; nothing was changed");
    this.name = name;
  }

  /** The name that was refused (may be null). */
  public String name() {
    return name;
  }
}
