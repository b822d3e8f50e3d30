package io.commitlane.bench.dataset;

import io.commitlane.bench.cli.Checks;
import io.commitlane.bench.harness.ContentionRunner;
import io.commitlane.bench.harness.ProgressLine;
import io.commitlane.bench.report.Units;
import io.commitlane.storage.CommitlaneSettings;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.EnvOptions;
import org.rocksdb.IngestExternalFileOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.SstFileWriter;

/**
 * A commitlane database of a {@link DatasetShape}, built once by bulk loading and reused: table
 * files written directly ({@code SstFileWriter}, one thread per core, each on its own range of
 * keys) and ingested into the default store, so no memtable, WAL or compaction is involved and
 * the data lands fully compacted in the last level. A marker file, written last, records the
 * shape; a directory whose marker matches is reused as it is. Legs never write to it: each gets
 * a {@link #cloneTo copy} whose table files are hard links.
 *
 * <p>Values are slices of one pool of random bytes at offsets that depend on the key: the same
 * shape is always the same bytes, and RocksDB cannot compress them (a data block holds no two
 * slices that overlap).
 */
public final class BulkDataset {
  public static final String MARKER = "commitlane-dataset.properties";
  /** Value bytes per ingested table file. */
  private static final long FILE_BYTES = 256L << 20;
  private static final int POOL_BYTES = 64 << 20;
  private static final long POOL_SEED = 0xDA7A5E7L;

  private final Path path;
  private final DatasetShape shape;
  private final double buildSeconds;

  private BulkDataset(Path path, DatasetShape shape, double buildSeconds) {
    this.path = path;
    this.shape = shape;
    this.buildSeconds = buildSeconds;
  }

  Path path() {
    return path;
  }

  public DatasetShape shape() {
    return shape;
  }

  /** Seconds the build took; NaN when an earlier build was reused. */
  public double buildSeconds() {
    return buildSeconds;
  }

  public boolean reused() {
    return Double.isNaN(buildSeconds);
  }

  /** Bytes of the database's table files. */
  public long tableBytes() throws IOException {
    try (Stream<Path> files = Files.list(path)) {
      long total = 0;
      for (Path f : files.filter(f -> f.getFileName().toString().endsWith(".sst")).toList()) {
        total += Files.size(f);
      }
      return total;
    }
  }

  /**
   * The dataset of {@code shape} in {@code dir}: reused if {@code dir} holds one (its marker says
   * so), built otherwise. A dataset of another shape there is replaced; a directory holding
   * anything else is refused (usage error naming --dir), never deleted.
   */
  public static BulkDataset ensure(Path dir, DatasetShape shape, CommitlaneSettings settings, PrintStream log) throws Exception {
    Path marker = dir.resolve(MARKER);
    if (Files.isRegularFile(marker)) {
      DatasetShape existing = DatasetShape.fromProperties(read(marker));
      if (shape.equals(existing)) {
        log.printf(Locale.ROOT, "  dataset %s: reusing %s%n", shape, dir);
        return new BulkDataset(dir, shape, Double.NaN);
      }
      log.printf(Locale.ROOT, "  dataset %s: %s holds another (%s): replacing it%n", shape, dir, existing == null ? "an older format" : existing);
      ContentionRunner.deleteRecursively(dir);
    } else if (Files.exists(dir) && !isEmptyDirectory(dir)) {
      throw Checks.usage("--dir: " + dir + " holds files that are not a dataset this command built (no " + MARKER
          + "); remove it or name another directory");
    }
    Path building = dir.resolveSibling(dir.getFileName() + ".building"); // an interrupted build is left here, and replaced next time
    ContentionRunner.deleteRecursively(building);
    long t0 = System.nanoTime();
    build(building, shape, settings, log);
    write(building.resolve(MARKER), shape.toProperties());
    Files.deleteIfExists(dir); // empty, if there
    Files.move(building, dir, StandardCopyOption.ATOMIC_MOVE);
    double seconds = (System.nanoTime() - t0) / 1e9;
    BulkDataset built = new BulkDataset(dir, shape, seconds);
    log.printf(Locale.ROOT, "  dataset %s: built in %.1f s, %s of table files in %s%n", shape, seconds, Units.bytes(built.tableBytes()), dir);
    return built;
  }

  private static void build(Path dir, DatasetShape shape, CommitlaneSettings settings, PrintStream log) throws Exception {
    Files.createDirectories(dir);
    // commitlane creates its stores and options files; the data goes in after it closed
    Database.open(dir, DatabaseOptions.defaults().withWal(false).withSettings(settings)).close();
    ByteBuffer pool = pool();
    int parts = (int) Math.max(1, Math.min(Runtime.getRuntime().availableProcessors(), shape.keys()));
    Path staging = Files.createDirectories(dir.resolve("bulk-load"));
    List<String> files = Collections.synchronizedList(new ArrayList<>());
    List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
    AtomicLong written = new AtomicLong();
    try (CommitlaneRocksOptions options = new CommitlaneRocksOptions(settings.rocksDbTuning())) {
      List<Thread> writers = new ArrayList<>();
      for (int p = 0; p < parts; p++) {
        long from = shape.keys() * p / parts;
        long to = shape.keys() * (p + 1) / parts;
        int part = p;
        Thread t = new Thread(() -> {
          try {
            writeRange(staging, part, from, to, shape, pool.duplicate(), options, files, written);
          } catch (Throwable e) {
            errors.add(e);
          }
        }, "bulk-load-" + p);
        writers.add(t);
        t.start();
      }
      long total = shape.valueBytes();
      try (ProgressLine line = ProgressLine.start(System.err, false,
          () -> String.format(Locale.ROOT, "building %s: %.0f%%", shape, 100.0 * written.get() / total))) {
        for (Thread t : writers) {
          t.join();
        }
      }
      if (!errors.isEmpty()) {
        throw new IllegalStateException("writing the table files of " + dir + " failed", errors.get(0));
      }
      ingest(dir, options, files.stream().sorted().toList());
    } finally {
      ContentionRunner.deleteRecursively(staging);
    }
  }

  /** Table files of keys {@code [from, to)}, in key order, each of about {@link #FILE_BYTES} of values. */
  private static void writeRange(Path staging, int part, long from, long to, DatasetShape shape, ByteBuffer pool,
      CommitlaneRocksOptions options, List<String> files, AtomicLong written) throws Exception {
    ByteBuffer key = ByteBuffer.allocateDirect(8);
    try (EnvOptions env = new EnvOptions()) {
      long k = from;
      for (int file = 0; k < to; file++) {
        // Part and file number in the name keep the files in key order when sorted by name.
        String name = staging.resolve(String.format(Locale.ROOT, "%03d-%06d.sst", part, file)).toString();
        try (SstFileWriter writer = new SstFileWriter(env, options.sstWriterOptions(io.commitlane.storage.Store.DEFAULT))) {
          writer.open(name);
          for (long bytes = 0; k < to && bytes < FILE_BYTES; k++) {
            int size = shape.valueSize(k);
            key.clear();
            key.putLong(k).flip();
            writer.put(key, value(pool, k, size));
            bytes += size;
            written.addAndGet(size);
          }
          writer.finish();
        }
        files.add(name);
      }
    }
  }

  /** The value of key {@code k}: {@code size} bytes of the pool from an offset that depends on the key. */
  private static ByteBuffer value(ByteBuffer pool, long k, int size) {
    int offset = (int) Long.remainderUnsigned(DatasetShape.mix(k ^ POOL_SEED), POOL_BYTES - size + 1L);
    return pool.limit(offset + size).position(offset);
  }

  /** The random bytes every value is cut from (direct, as the table writer reads it without a copy). */
  private static ByteBuffer pool() {
    ByteBuffer pool = ByteBuffer.allocateDirect(POOL_BYTES);
    SplittableRandom random = new SplittableRandom(POOL_SEED);
    while (pool.remaining() >= 8) {
      pool.putLong(random.nextLong());
    }
    return pool.clear();
  }

  private static void ingest(Path dir, CommitlaneRocksOptions options, List<String> files) throws Exception {
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    try (RocksDB db = RocksDB.open(options.dbOptions(), dir.toString(), options.descriptors(dir), handles);
        IngestExternalFileOptions ingest = new IngestExternalFileOptions().setMoveFiles(true)) {
      try {
        db.ingestExternalFile(handles.get(0), files, ingest); // handles.get(0): the default store, listed first
      } finally {
        handles.forEach(ColumnFamilyHandle::close);
      }
    }
  }

  /**
   * A copy of this database in {@code target} (which must not exist) for one leg to write to:
   * table files hard-linked (RocksDB never changes one in place, so writes to the copy leave this
   * one as it is), the rest copied. Costs a few metadata files of space until the leg writes.
   */
  Path cloneTo(Path target) throws IOException {
    Files.createDirectories(target.getParent());
    Files.createDirectory(target);
    try (Stream<Path> files = Files.list(path)) {
      for (Path f : files.toList()) {
        String name = f.getFileName().toString();
        if (name.equals(MARKER) || name.equals("LOCK") || name.startsWith("LOG")) {
          continue;
        }
        if (name.endsWith(".sst")) {
          Files.createLink(target.resolve(name), f);
        } else if (Files.isRegularFile(f)) {
          Files.copy(f, target.resolve(name));
        }
      }
    }
    return target;
  }

  private static boolean isEmptyDirectory(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return false;
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.findAny().isEmpty();
    }
  }

  private static Properties read(Path file) throws IOException {
    Properties p = new Properties();
    try (InputStream in = Files.newInputStream(file)) {
      p.load(in);
    }
    return p;
  }

  private static void write(Path file, Properties p) throws IOException {
    try (OutputStream out = Files.newOutputStream(file)) {
      p.store(out, "a commitlane benchmark dataset: reused while this matches what a command asks for");
    }
  }
}
