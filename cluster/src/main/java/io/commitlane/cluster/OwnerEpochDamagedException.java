package io.commitlane.cluster;

import io.commitlane.storage.CommitlaneException;
import java.nio.file.Path;

/**
 * A database's owner epoch file is damaged, so the next owner epoch cannot be known: taking a
 * guess could hand out an epoch an earlier owner already used and reorder commit stamps across
 * owners. The database was not opened and nothing was written.
 */
public final class OwnerEpochDamagedException extends CommitlaneException {
  public OwnerEpochDamagedException(Path file, String why) {
    super("the owner epoch file " + file + " is damaged (" + why + "), so the database's next owner epoch is unknown;"
        + " it was not opened. Restore it from a backup, or delete it: the next owner then continues after the epoch"
        + " that the owner.lock beside it records, which every owner writes there too once its epoch file is written");
  }
}
