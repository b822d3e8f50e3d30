package io.commitlane.cluster;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/** Test helpers: a bounded wait for a stage, and UTF-8 bytes. */
final class Await {
  private Await() {}

  static <T> T result(CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("no result within 60 s", e);
    }
  }

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static String s(byte[] b) {
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }
}
