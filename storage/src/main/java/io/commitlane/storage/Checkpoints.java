package io.commitlane.storage;

import io.commitlane.storage.internal.backup.SideFiles;
import io.commitlane.storage.internal.files.RealPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import org.rocksdb.Checkpoint;
import org.rocksdb.RocksDBException;

/**
 * Takes a checkpoint: RocksDB's {@code Checkpoint} (it flushes, then hard-links the table files
 * and copies the rest), then the transaction logs and the store-drop records. The logs are copied
 * after RocksDB's files under a {@link LogCapture} hold, so they never run behind the data and
 * their flushed positions claim nothing the copied data lacks; opening the copy replays what they
 * hold beyond it.
 */
final class Checkpoints {
  private Checkpoints() {}

  static CheckpointInfo create(SharedDatabase shared, Path target) {
    shared.requireWritable("take a checkpoint (a read-only handle cannot flush, so its copy could miss data)");
    Path dest = target.toAbsolutePath().normalize();
    if (Files.exists(dest, LinkOption.NOFOLLOW_LINKS)) {
      throw new CheckpointRefusedException("cannot take a checkpoint into " + dest + ": it already exists; a checkpoint goes"
          + " into a new directory, so choose another path or remove that one");
    }
    if (RealPaths.overlap(dest, shared.path())) {
      throw new CheckpointRefusedException("cannot take a checkpoint of " + shared.path() + " into " + dest
          + ": one is inside the other; choose a directory outside the database");
    }
    boolean done = false;
    try {
      if (dest.getParent() != null) {
        Files.createDirectories(dest.getParent());
      }
      LogCapture capture = shared.hooks().logCapture();
      try (LogCapture.Hold hold = capture != null ? capture.hold() : new FileCopyHold(shared.path())) {
        long sequence = shared.latestSequenceNumber();
        try (Checkpoint checkpoint = Checkpoint.create(shared.rocks())) {
          checkpoint.createCheckpoint(dest.toString());
        }
        List<CapturedLog> logs = hold.copyTo(dest.resolve(SideFiles.TXLOG), null);
        SideFiles.copyDropRecords(shared.path(), dest);
        SideFiles.syncDirectory(dest);
        done = true;
        return new CheckpointInfo(dest, sequence, logs);
      }
    } catch (RocksDBException e) {
      throw new CheckpointException("RocksDB could not take a checkpoint of " + shared.path() + " into " + dest + ": "
          + e.getMessage() + "; check the space and permissions there and try again", e);
    } catch (IOException | java.io.UncheckedIOException e) {
      throw new CheckpointException("copying the checkpoint of " + shared.path() + " into " + dest + " failed: " + e
          + "; check the space and permissions there and try again", e);
    } finally {
      if (!done) {
        SideFiles.deleteTree(dest); // it did not exist before: everything in it is ours
      }
    }
  }

  /** The capture of a database whose logs nothing writes: they are copied as files. */
  static final class FileCopyHold implements LogCapture.Hold {
    private final Path db;

    FileCopyHold(Path db) {
      this.db = db;
    }

    @Override
    public List<CapturedLog> copyTo(Path txlogDirectory, Path earlier) {
      try {
        return SideFiles.copyLogsAsFiles(db, txlogDirectory);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException("cannot copy the transaction logs of " + db, e);
      }
    }

    @Override
    public void close() {}
  }
}
