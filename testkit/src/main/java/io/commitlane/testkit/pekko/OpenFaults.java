package io.commitlane.testkit.pekko;

import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.txlog.LogIOException;
import io.commitlane.txlog.internal.fs.FaultInjectingFileSystem;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Opens that fail or halt part-way, to check that the open after them never goes back in time: a
 * failure at the n-th flushed-position file that opening writes (as a full disk fails it), a halt
 * there (a copy of the directory at that moment: what a kill -9 would leave), and a lost or
 * damaged flushed-position file.
 *
 * <pre>{@code
 * Path recover = OpenFaults.HALT_AT_FLUSHED_POSITION.open(system, dir, settings, 2, dir.resolveSibling("halted"));
 * try (CommitlaneDatabase db = Commitlane.get(system).open(recover, settings)) {
 *   // check what db holds
 * }
 * }</pre>
 */
public enum OpenFaults {
  FAIL_AT_FLUSHED_POSITION,
  HALT_AT_FLUSHED_POSITION,
  LOST_FLUSHED_POSITION,
  DAMAGED_FLUSHED_POSITION;

  /** Whether this fault is a damaged flushed-position file rather than a faulty open. */
  public boolean damagesTheFile() {
    return this == LOST_FLUSHED_POSITION || this == DAMAGED_FLUSHED_POSITION;
  }

  /**
   * Opens {@code dir} with this fault at point {@code at} (1-based) and closes it if the open
   * succeeded; returns the directory the next open must recover: {@code halted} if the open
   * halted there, else {@code dir}.
   */
  public Path open(ActorSystem<?> system, Path dir, PipelineSettings settings, int at, Path halted) {
    int[] seen = {0};
    Runnable halt = () -> {
      if (++seen[0] == at) {
        copyRunning(dir, halted);
      }
    };
    switch (this) {
      case FAIL_AT_FLUSHED_POSITION -> {
        FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
        fs.beforeCreate(() -> {
          if (++seen[0] == at) {
            fs.failNextCreate();
          }
        });
        openAndClose(system, dir, withFileSystem(settings, fs));
      }
      case HALT_AT_FLUSHED_POSITION -> {
        FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
        fs.beforeCreate(halt);
        openAndClose(system, dir, withFileSystem(settings, fs));
      }
      case LOST_FLUSHED_POSITION, DAMAGED_FLUSHED_POSITION -> damageFlushedPosition(dir, at);
    }
    return Files.isDirectory(halted) ? halted : dir;
  }

  /** Deletes or overwrites the flushed-position file of the {@code at}-th log (cyclically), if any. */
  private void damageFlushedPosition(Path dir, int at) {
    try {
      List<Path> logs;
      Path root = dir.resolve("txlog");
      if (!Files.isDirectory(root)) {
        return;
      }
      try (Stream<Path> s = Files.list(root)) {
        logs = s.filter(Files::isDirectory).sorted().toList();
      }
      if (logs.isEmpty()) {
        return;
      }
      Path file = logs.get((at - 1) % logs.size()).resolve("flushed-position");
      if (this == LOST_FLUSHED_POSITION) {
        Files.deleteIfExists(file);
      } else if (Files.exists(file)) {
        Files.writeString(file, "not a flushed position");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Opens and closes {@code dir}; an open that fails with the injected fault is what was asked for. */
  private static void openAndClose(ActorSystem<?> system, Path dir, PipelineSettings settings) {
    CommitlaneDatabase db;
    try {
      db = Commitlane.get(system).open(dir, settings);
    } catch (LogIOException injected) {
      return; // what the next open finds is the point
    }
    db.close();
  }

  /** {@code base} with its logs on {@code fs}. */
  public static PipelineSettings withFileSystem(PipelineSettings base, FaultInjectingFileSystem fs) {
    return base.withLog(base.log().withFileSystem(fs));
  }

  /**
   * Copies a running database's files: what a kill -9 at this moment would leave (every write
   * reached the OS, nothing RocksDB kept in memory). Lock files stay behind. RocksDB may finish a
   * background flush or compaction meanwhile (its manifest then names files the copy lacks), so
   * the copy is made again until no file changed while it ran, as a kill's instant would have it.
   */
  public static void copyRunning(Path from, Path to) {
    try {
      for (int attempt = 0; ; attempt++) {
        try {
          Map<Path, List<Object>> before = listing(from);
          copy(from, to);
          if (before.equals(listing(from)) || attempt == 50) {
            return;
          }
        } catch (UncheckedIOException | NoSuchFileException changing) {
          // a file vanished while the directory was walked: copy again
        }
        deleteRecursively(to);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path p : files.sorted(Comparator.naturalOrder()).toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else if (!p.getFileName().toString().equals("LOCK")) {
          try {
            Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
          } catch (NoSuchFileException gone) {
            // deleted meanwhile: the listing tells
          }
        }
      }
    }
  }

  /** Every file but RocksDB's info logs, with its size and modification time. */
  private static Map<Path, List<Object>> listing(Path dir) throws IOException {
    Map<Path, List<Object>> out = new TreeMap<>();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.toList()) {
        String name = p.getFileName().toString();
        if (name.startsWith("LOG")) {
          continue;
        }
        try {
          out.put(dir.relativize(p), List.of(Files.isDirectory(p) ? -1L : Files.size(p),
              Files.getLastModifiedTime(p)));
        } catch (NoSuchFileException gone) {
          out.put(dir.relativize(p), List.of("gone"));
        }
      }
    }
    return out;
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
