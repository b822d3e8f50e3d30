package io.commitlane.storage;

import io.commitlane.annotation.InternalApi;
import java.nio.file.Path;
import java.util.List;

/**
 * How checkpoints and backups copy the transaction logs of a database whose logs are being
 * written (the actor pipeline installs it with {@link Database#setLogCapture}). The order is what
 * makes a copy consistent: {@link #hold()} before RocksDB's files are captured, {@link
 * Hold#copyTo} after, so a log copy never lacks a record whose data the captured files hold
 * (logs may run ahead of the data, never behind), and opening the copy replays what they hold
 * beyond it.
 */
@InternalApi
public interface LogCapture {
  /**
   * From now until the hold closes, no log's flushed position moves and no replay marker is
   * deleted: the flushed positions the copies carry then claim nothing the captured RocksDB files
   * do not hold, and every record beyond them still has its marker where RocksDB holds its data.
   */
  Hold hold();

  /** A capture in progress. */
  interface Hold extends AutoCloseable {
    /**
     * Copies every log into {@code txlogDirectory} (one directory per log), each with the flushed
     * position held. {@code earlier}: an earlier copy's {@code txlog} directory whose sealed
     * segments may be hard-linked instead of copied, or null.
     */
    List<CapturedLog> copyTo(Path txlogDirectory, Path earlier);

    /** Lets flushed positions move again (a flush seen meanwhile is applied now). */
    @Override
    void close();
  }
}
