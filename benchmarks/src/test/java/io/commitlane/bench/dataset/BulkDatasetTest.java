package io.commitlane.bench.dataset;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.bench.cli.Checks;
import io.commitlane.bench.read.ReadKeys;
import io.commitlane.storage.CommitlaneSettings;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import io.commitlane.storage.KeyRange;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bulk-built datasets strain and scale run on: built once, reused, copied per leg, and opened by the raw peer as commitlane opens them. */
class BulkDatasetTest {
  private static final DatasetShape SHAPE = new DatasetShape(3_000, 100, 400);

  @TempDir
  Path dir;

  private final ByteArrayOutputStream log = new ByteArrayOutputStream();

  private BulkDataset ensure(Path where, DatasetShape shape) throws Exception {
    return BulkDataset.ensure(where, shape, CommitlaneSettings.defaults(), new PrintStream(log, true, StandardCharsets.UTF_8));
  }

  private static Database open(Path p) {
    return Database.open(p, DatabaseOptions.defaults().withWal(false));
  }

  @Test
  void holdsEveryKeyWithItsSizeIsReusedAndCopiesLeaveItAsItWas() throws Exception {
    BulkDataset built = ensure(dir.resolve("data"), SHAPE);
    assertFalse(built.reused());
    assertTrue(built.buildSeconds() > 0);
    assertTrue(built.tableBytes() >= SHAPE.valueBytes(), "incompressible values: the table files hold at least their bytes");

    Path copy = built.cloneTo(dir.resolve("leg-1"));
    byte[] before;
    try (Database db = open(copy)) {
      assertEquals(SHAPE.keys(), db.count(KeyRange.all()));
      for (long k : new long[] {0, 1, 1_499, 2_999}) {
        assertEquals(SHAPE.valueSize(k), db.get(ReadKeys.key(k)).length, "key " + k);
      }
      before = db.get(ReadKeys.key(7));
      db.put(ReadKeys.key(7), "changed".getBytes(StandardCharsets.UTF_8));
      db.flush();
      db.compact(KeyRange.all(), true); // rewrites every table file of the copy
    }

    BulkDataset again = ensure(dir.resolve("data"), SHAPE);
    assertTrue(again.reused(), log.toString(StandardCharsets.UTF_8));
    try (Database db = open(again.cloneTo(dir.resolve("leg-2")))) {
      assertArrayEquals(before, db.get(ReadKeys.key(7)), "the copy's writes and compaction left the dataset as built");
    }
    try (Database db = open(ensure(dir.resolve("other"), SHAPE).path())) {
      assertArrayEquals(before, db.get(ReadKeys.key(7)), "the same shape is the same bytes");
    }
  }

  @Test
  void anotherShapeIsReplacedAndADirectoryOfSomethingElseIsRefused() throws Exception {
    ensure(dir.resolve("data"), SHAPE);
    DatasetShape bigger = new DatasetShape(4_000, 100, 400);
    BulkDataset replaced = ensure(dir.resolve("data"), bigger);
    assertFalse(replaced.reused());
    try (Database db = open(replaced.cloneTo(dir.resolve("leg")))) {
      assertEquals(4_000, db.count(KeyRange.all()));
    }

    Path foreign = Files.createDirectories(dir.resolve("foreign"));
    Files.writeString(foreign.resolve("notes.txt"), "mine");
    Checks.UsageException e = assertThrows(Checks.UsageException.class, () -> ensure(foreign, SHAPE));
    assertTrue(e.getMessage().contains("--dir") && e.getMessage().contains(BulkDataset.MARKER), e.getMessage());
    assertTrue(Files.exists(foreign.resolve("notes.txt")), "never deleted");
  }

  @Test
  void theRawPeerOpensTheFilesWithCommitlanesRocksDbOptions() throws Exception {
    BulkDataset data = ensure(dir.resolve("data"), SHAPE);
    Path commitlane = data.cloneTo(dir.resolve("commitlane"));
    open(commitlane).close();
    Path raw = data.cloneTo(dir.resolve("raw"));
    try (TunedOptimisticPeer.Opened peer = new TunedOptimisticPeer(CommitlaneSettings.defaults().rocksDbTuning()).open(raw)) {
      RocksNumbers n = peer.numbers();
      assertTrue(n.tableReadersBytes() > 0 && n.stallMicros() == 0, n.toString());
    }
    Map<String, Map<String, String>> expected = latestOptions(commitlane);
    Map<String, Map<String, String>> actual = latestOptions(raw);
    assertEquals(expected.keySet(), actual.keySet(), "the same stores and sections");
    Map<String, String> differences = new TreeMap<>();
    for (String section : expected.keySet()) {
      Map<String, String> e = expected.get(section);
      Map<String, String> a = actual.get(section);
      for (String option : union(e.keySet(), a.keySet())) {
        if (!DIFFERENT_BY_DESIGN.contains(option) && !java.util.Objects.equals(e.get(option), a.get(option))) {
          differences.put(section + " " + option, "commitlane " + e.get(option) + ", raw peer " + a.get(option));
        }
      }
    }
    assertEquals(Map.of(), differences);
  }

  /**
   * What RocksDB's optimistic transactions set themselves: to check conflicts against writes
   * already flushed, the optimistic database keeps that many bytes of flushed memtables (its
   * sanitized default, max-write-buffers x write-buffer-size). It is part of what the peer costs.
   */
  private static final Set<String> DIFFERENT_BY_DESIGN = Set.of("max_write_buffer_size_to_maintain");

  private static Set<String> union(Set<String> a, Set<String> b) {
    Set<String> u = new java.util.TreeSet<>(a);
    u.addAll(b);
    return u;
  }

  /** The newest OPTIONS file RocksDB wrote in {@code db}: section -> option -> value. */
  private static Map<String, Map<String, String>> latestOptions(Path db) throws IOException {
    Path file;
    try (Stream<Path> files = Files.list(db)) {
      file = files.filter(f -> f.getFileName().toString().matches("OPTIONS-\\d+"))
          .max((x, y) -> Long.compare(number(x), number(y))).orElseThrow();
    }
    Map<String, Map<String, String>> sections = new LinkedHashMap<>();
    Map<String, String> current = null;
    for (String line : Files.readAllLines(file)) {
      String t = line.trim();
      if (t.startsWith("[")) {
        current = sections.computeIfAbsent(t, k -> new LinkedHashMap<>());
      } else if (current != null && t.contains("=") && !t.startsWith("#")) {
        current.put(t.substring(0, t.indexOf('=')), t.substring(t.indexOf('=') + 1));
      }
    }
    sections.remove("[Version]");
    return sections;
  }

  private static long number(Path options) {
    return Long.parseLong(options.getFileName().toString().substring("OPTIONS-".length()));
  }
}
