package io.commitlane.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code ./commitlane db compact}: 0 when compacted, 2 naming the flag for a store or a range that cannot be. */
class DbCompactCommandTest {
  @TempDir
  Path dir;

  private record Result(int code, String out, String err) {}

  private static Result run(String... args) {
    CommandLine cli = Main.commandLine();
    StringWriter err = new StringWriter();
    cli.setErr(new PrintWriter(err, true));
    PrintStream old = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    try {
      return new Result(cli.execute(args), out.toString(StandardCharsets.UTF_8), err.toString());
    } finally {
      System.setOut(old);
    }
  }

  @Test
  void compactsAStoreOrARangeAndRefusesWhatCannotBe() {
    try (Database db = Database.open(dir, DatabaseOptions.defaults().withStores("items"))) {
      for (int i = 0; i < 1000; i++) {
        db.put(db.store("items"), ("k" + i).getBytes(StandardCharsets.UTF_8), new byte[100]);
      }
      db.flush();
    }
    Result all = run("db", "compact", dir.toString(), "--store", "items", "--bottommost");
    assertEquals(0, all.code(), all.err());
    assertTrue(all.out().contains("compacted store 'items' (all keys)") && all.out().contains("bottommost"), all.out());
    Result range = run("db", "compact", dir.toString(), "--from", "k1", "--to", "0x6b35");
    assertEquals(0, range.code(), range.err());
    assertTrue(range.out().contains("[k1, 0x6b35)"), range.out());
    Result noStore = run("db", "compact", dir.toString(), "--store", "nope");
    assertEquals(2, noStore.code());
    assertTrue(noStore.err().contains("--store: no store 'nope'") && noStore.err().contains("[default, items]"), noStore.err());
    Result backwards = run("db", "compact", dir.toString(), "--from", "z", "--to", "a");
    assertEquals(2, backwards.code());
    assertTrue(backwards.err().contains("--from/--to"), backwards.err());
  }
}
