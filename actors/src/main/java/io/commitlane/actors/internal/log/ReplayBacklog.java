package io.commitlane.actors.internal.log;

import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.Database;
import io.commitlane.txlog.UnflushedRecords;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * INTERNAL API. How many log records a normal open of a database would replay, per transaction
 * log, counted without replaying them: a log's records at or after its flushed position that carry
 * writes ({@link UnflushedRecords}), at or above its marker floor, whose replay marker RocksDB
 * does not hold ({@link ReplayMarkers}): the records {@link CrashReplay} applies (or, past damage
 * in point-in-time recovery, abandons). A read-only open applies none of them, so what it shows
 * lacks their writes. Reads the log files and RocksDB; changes nothing.
 */
@InternalApi
public final class ReplayBacklog {
  private static final Logger LOG = LoggerFactory.getLogger(ReplayBacklog.class);

  private ReplayBacklog() {}

  /** Per log of {@code db} (every directory under {@code txlog/} with a log's name), the records a normal open would replay. */
  public static Map<String, Long> count(Database db) {
    Map<String, Long> out = new TreeMap<>();
    Path root = db.path().resolve(TransactionLogs.DIRECTORY);
    if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
      return out;
    }
    try (Stream<Path> entries = Files.list(root)) {
      for (Path dir : entries.sorted().toList()) {
        String log = dir.getFileName().toString();
        if (!TransactionLogs.NAME.matcher(log).matches() || !Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
          continue;
        }
        try {
          long floor = ReplayMarkers.floor(db, log);
          long n = 0;
          for (long position : UnflushedRecords.positions(dir)) {
            if (position >= floor && !ReplayMarkers.held(db, log, position)) {
              n++;
            }
          }
          out.put(log, n);
        } catch (IOException e) {
          LOG.warn("cannot count the records transaction log {} of {} holds beyond its flushed position: {}", log, db.path(),
              e.toString());
        }
      }
    } catch (IOException e) {
      LOG.warn("cannot list the transaction logs of {}: {}", db.path(), e.toString());
    }
    return out;
  }
}
