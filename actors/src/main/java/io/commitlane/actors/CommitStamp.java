package io.commitlane.actors;

/**
 * Where a commit stands in its database's history. {@code version} is the commit clock of the
 * database while it is open (later commits to a key have higher versions). A sharded database
 * counts its owners in {@code ownerEpoch} (each new owner takes the next epoch after the previous
 * one closed), so stamps of one sharded database are totally ordered across owners. A local
 * database's epoch is 0.
 *
 * @param ownerEpoch the sharded owner's epoch (1 for the first owner); 0 for a local database
 * @param version the commit-clock value within that epoch
 */
public record CommitStamp(long ownerEpoch, long version) implements Comparable<CommitStamp> {
  @Override
  public int compareTo(CommitStamp o) {
    int c = Long.compare(ownerEpoch, o.ownerEpoch);
    return c != 0 ? c : Long.compare(version, o.version);
  }

  @Override
  public String toString() {
    return ownerEpoch + "." + version;
  }
}
