package io.commitlane.storage;

/**
 * How {@link BackupStore#restore} treats the target: {@code replaceExisting} lets it replace a
 * database already there (its files are deleted as {@link Database#destroy} would; files of
 * anyone else stay), {@code allowOtherDatabase} lets it replace a database that is not the one
 * the backup was taken of.
 */
public record RestoreOptions(boolean replaceExisting, boolean allowOtherDatabase) {
  /** Into a missing or empty directory only. */
  public static RestoreOptions defaults() {
    return new RestoreOptions(false, false);
  }

  public RestoreOptions replacingExisting() {
    return new RestoreOptions(true, allowOtherDatabase);
  }

  public RestoreOptions allowingOtherDatabase() {
    return new RestoreOptions(replaceExisting, true);
  }
}
