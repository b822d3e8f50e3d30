package io.commitlane.actors.projection;

import java.util.List;

/**
 * A batch a projection committed: its handler's writes and its new position, in one transaction.
 * What {@link Projection#source()} emits, one per batch, in position order.
 *
 * @param projection the projection's name
 * @param after the stored position the batch came after (-1: the projection had none)
 * @param position the position of its last record: the projection's stored position now
 * @param records the batch's records, in position order
 * @param <R> the record type of the projection's log
 */
public record ProjectionBatch<R>(String projection, long after, long position, List<R> records) {
  public ProjectionBatch {
    records = List.copyOf(records);
  }

  @Override
  public String toString() {
    return "ProjectionBatch[" + projection + ", after " + after + " through " + position + ", " + records.size() + " records]";
  }
}
