package io.commitlane.cluster;

/**
 * Where a commit stands in its database's history. Stamps of one database are totally ordered
 * across owners: {@code ownerEpoch} counts the times the database was opened as an entity (each
 * new owner takes the next epoch under the owner lock, after the previous owner closed), and
 * {@code version} is the commit clock within that ownership (later commits to a key have higher
 * versions).
 *
 * @param ownerEpoch the owner's epoch, 1 for the first owner
 * @param version the commit-clock value within that epoch
 */
public record CommitStamp(long ownerEpoch, long version) implements CborSerializable, Comparable<CommitStamp> {
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
