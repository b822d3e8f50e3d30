package io.commitlane.bench.db;

import io.commitlane.bench.cli.Checks;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import io.commitlane.storage.KeyRange;
import io.commitlane.storage.Store;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ./commitlane db compact DIR [--store S] [--from K] [--to K] [--bottommost]}: a manual
 * RocksDB compaction of one store (or a key range of it), reporting the data-file bytes before and
 * after. Opens the database with storage alone: it must not be open in another process.
 */
@Command(name = "compact", mixinStandardHelpOptions = true,
    description = "Compact a store of a database (all of it, or the keys in [--from, --to)) and print its data-file bytes"
        + " before and after. Keys are UTF-8 text, or hex with a 0x prefix. Exit code 0: compacted, 1: failed (for example"
        + " the database is open in another process), 2: bad arguments (no database at DIR, no such store, --from above --to).")
final class DbCompactCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "DIR", description = "The database directory")
  Path directory;

  @Option(names = "--store", defaultValue = Store.DEFAULT, description = "The store to compact (default: ${DEFAULT-VALUE})")
  String store;

  @Option(names = "--from", paramLabel = "KEY", description = "First key to compact (inclusive; default: the first key)")
  String from;

  @Option(names = "--to", paramLabel = "KEY", description = "End of the keys to compact (exclusive; default: the last key)")
  String to;

  @Option(names = "--bottommost", description = "Rewrite the last level too: reclaims the space of deleted and cleared keys")
  boolean bottommost;

  @Override
  public Integer call() {
    byte[] lower = from == null ? null : key("--from", from);
    byte[] upper = to == null ? null : key("--to", to);
    if (!Files.isDirectory(directory) || !Files.exists(directory.resolve("CURRENT"))) {
      throw Checks.usage("DIR: no database at " + directory + " (a RocksDB directory has a CURRENT file)");
    }
    KeyRange range;
    try {
      range = KeyRange.all();
      if (lower != null) {
        range = range.from(lower);
      }
      if (upper != null) {
        range = range.to(upper);
      }
    } catch (io.commitlane.storage.InvalidRangeException e) {
      throw Checks.usage("--from/--to: " + e.getMessage());
    }
    try (Database db = Database.open(directory, DatabaseOptions.defaults().withCreateIfMissing(false))) {
      if (db.findStore(store).isEmpty()) {
        throw Checks.usage("--store: no store '" + store + "' in " + directory + "; its stores are " + db.storeNames());
      }
      long before = dataFileBytes(directory);
      long started = System.nanoTime();
      db.compact(range.in(db.store(store)), bottommost);
      System.out.printf("compacted store '%s' %s of %s%s in %.1f s: data files %s -> %s%n", store,
          lower == null && upper == null ? "(all keys)" : "[" + (from == null ? "" : from) + ", " + (to == null ? "" : to) + ")",
          directory, bottommost ? " (bottommost level included)" : "", (System.nanoTime() - started) / 1e9,
          mib(before), mib(dataFileBytes(directory)));
      return 0;
    }
  }

  private static byte[] key(String flag, String text) {
    if (text.startsWith("0x")) {
      try {
        return HexFormat.of().parseHex(text.substring(2));
      } catch (IllegalArgumentException e) {
        throw Checks.usage(flag + ": '" + text + "' is not hex after 0x (" + e.getMessage() + ")");
      }
    }
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** Bytes of the database's .sst files (every store's; compaction of one store changes only its share). */
  private static long dataFileBytes(Path dir) {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(p -> p.getFileName().toString().endsWith(".sst")).mapToLong(p -> {
        try {
          return Files.size(p);
        } catch (IOException e) {
          return 0; // removed by a compaction while listed
        }
      }).sum();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + dir, e);
    }
  }

  private static String mib(long bytes) {
    return String.format("%.2f MiB", bytes / 1048576.0);
  }
}
