package io.commitlane.bench.jmh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.bench.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The jmh command finds the generated micro-benchmarks (running them is for the command line, not the test suite). */
class JmhCommandTest {
  @Test
  void listsTheMicroBenchmarksOfTheHotPieces() {
    PrintStream original = System.out;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    int code;
    try {
      code = Main.run("jmh", "-l");
    } finally {
      System.setOut(original);
    }
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertEquals(0, code, out);
    for (String b : List.of("io.commitlane.storage.VersionTableBench.lockValidateStampUnlock", "io.commitlane.txlog.FrameEncodingBench.encodeRecord",
        "io.commitlane.txlog.LogAppendBench.appendAndFinish", "io.commitlane.actors.internal.pipeline.CommitQueueBench.handoff")) {
      assertTrue(out.contains(b), b + " missing from: " + out);
    }
  }

  @Test
  void aBadJmhArgumentIsAUsageError() {
    assertEquals(2, Main.run("jmh", "-f", "not-a-number"));
  }
}
