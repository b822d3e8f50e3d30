package io.commitlane.bench.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.bench.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PipelineBenchTest {
  @Test
  void smallestRunOfEveryScenarioSucceeds() {
    int code = Main.run("pipeline", "--runs", "1", "--seconds", "0.3", "--warmup", "0.1",
        "--loads", "2x1", "--matched-loads", "2x1", "--concurrency", "2", "--latency-keys", "1", "--probe-load", "1x1");
    assertEquals(0, code);
  }

  @Test
  void badFlagIsAUsageErrorNamingTheFlag() {
    PrintStream original = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    int code;
    try {
      code = Main.run("pipeline", "--concurrency", "0");
    } finally {
      System.setErr(original);
    }
    assertEquals(2, code);
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("--concurrency"), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void malformedLoadIsAUsageError() {
    assertEquals(2, Main.run("pipeline", "--loads", "4by64"));
  }
}
