package io.commitlane.bench.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.bench.CliRun;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ./commitlane db compact}: 0 when compacted, 2 naming the flag for a store or a range that cannot be. */
class DbCompactCommandTest {
  @TempDir
  Path dir;

  @Test
  void compactsAStoreOrARangeAndRefusesWhatCannotBe() {
    try (Database db = Database.open(dir, DatabaseOptions.defaults().withStores("items"))) {
      for (int i = 0; i < 1000; i++) {
        db.put(db.store("items"), ("k" + i).getBytes(StandardCharsets.UTF_8), new byte[100]);
      }
      db.flush();
    }
    CliRun all = CliRun.of("db", "compact", dir.toString(), "--store", "items", "--bottommost");
    assertEquals(0, all.code(), all.err());
    assertTrue(all.out().contains("compacted store 'items' (all keys)") && all.out().contains("bottommost"), all.out());
    CliRun range = CliRun.of("db", "compact", dir.toString(), "--from", "k1", "--to", "0x6b35");
    assertEquals(0, range.code(), range.err());
    assertTrue(range.out().contains("[k1, 0x6b35)"), range.out());
    CliRun noStore = CliRun.of("db", "compact", dir.toString(), "--store", "nope");
    assertEquals(2, noStore.code());
    assertTrue(noStore.err().contains("--store: no store 'nope'") && noStore.err().contains("[default, items]"), noStore.err());
    CliRun backwards = CliRun.of("db", "compact", dir.toString(), "--from", "z", "--to", "a");
    assertEquals(2, backwards.code());
    assertTrue(backwards.err().contains("--from/--to"), backwards.err());
  }
}
