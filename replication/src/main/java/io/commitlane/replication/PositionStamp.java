package io.commitlane.replication;

/**
 * Where a positioned put ({@link ReplicatedTransaction#putPositioned}) receives one of its
 * commit's positions ({@link LogPositions}): 8 bytes, big-endian, at {@code offset} of its key or
 * its value, overwritten by every replica as it applies the commit.
 *
 * @param inValue whether the place is in the value (else in the key)
 * @param offset the first of the 8 bytes
 * @param ordinal which of the commit's positions: the commit's first position plus this (0 ..
 *     {@link LogPositions#PER_ENTRY} - 1); several places may share one ordinal
 */
public record PositionStamp(boolean inValue, int offset, int ordinal) {
  public PositionStamp {
    if (offset < 0) {
      throw new InvalidReplicaRequestException("a position stamp's offset is " + offset + "; give 0 or above");
    }
    if (ordinal < 0 || ordinal >= LogPositions.PER_ENTRY) {
      throw new InvalidReplicaRequestException("a position stamp's ordinal is " + ordinal + "; give 0.."
          + (LogPositions.PER_ENTRY - 1));
    }
  }
}
