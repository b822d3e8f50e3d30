package io.commitlane.bench.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.bench.CliRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * persistence end to end at tiny sizes: commitlane against Pekko's LevelDB journal on a persist load, a recovery and a
 * tag query (the JDBC peers take longer to start than a test should; the command runs them). Asserts that every peer measured something and that the files are written, not how fast.
 */
class PersistenceBenchTest {
  @TempDir
  Path dir;

  @Test
  void everyEmbeddedPeerIsMeasuredAndReported() throws Exception {
    Path out = dir.resolve("out");
    CliRun run = CliRun.of("persistence", "--peers", "commitlane,leveldb", "--loads", "persist-1,recover-one,events-by-tag",
        "--runs", "1", "--warmup", "0", "--seconds", "0.5", "--one-events", "200", "--many-entities", "4", "--many-events", "50",
        "--dir", dir.resolve("data").toString(), "--out", out.toString());
    assertEquals(0, run.code(), run.out() + run.err());
    for (String peer : new String[] {"commitlane", "leveldb"}) {
      // a rate, whatever it is (a half-second window on a busy machine may see none): the measurement ran
      assertTrue(Pattern.compile("round 1 " + peer + " +[0-9,]+ events/s").matcher(run.out()).find(), peer + ":\n" + run.out());
      assertTrue(Pattern.compile("round 1 " + peer + " +[0-9,]+ ms \\(").matcher(run.out()).find(), peer + " recovery:\n" + run.out());
    }
    assertFalse(run.out().contains("failed:"), run.out());
    String md = Files.readString(out.resolve("persistence.md"));
    assertTrue(md.contains("### persist-1") && md.contains("### recover-one") && md.contains("### events-by-tag"), md);
    assertTrue(Files.readString(out.resolve("persistence.json")).contains("\"events-by-tag\""));
  }
}
