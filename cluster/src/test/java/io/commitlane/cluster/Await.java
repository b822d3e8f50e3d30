package io.commitlane.cluster;

import io.commitlane.actors.DatabaseProtocol.Refusal;
import io.commitlane.actors.DatabaseProtocol.RefusedReply;
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

  /** The stage's reply, which must be a {@code T}: otherwise the test fails naming the reply it got. */
  static <T> T result(CompletionStage<?> stage, Class<T> expected) {
    return as(expected, result(stage));
  }

  /**
   * {@code reply} as a {@code T}, or a failure that prints the reply (its message says why it was
   * refused). For a {@code T} of {@link Refusal} ({@code Failed}, {@code Unavailable}), the refusal
   * a refused reply carries.
   */
  static <T> T as(Class<T> expected, Object reply) {
    Object r = Refusal.class.isAssignableFrom(expected) && reply instanceof RefusedReply refused ? refused.refusal() : reply;
    if (!expected.isInstance(r)) {
      throw new AssertionError("expected " + expected.getSimpleName() + " but got " + reply);
    }
    return expected.cast(r);
  }

  /** The refusal a refused reply carries ({@code refusal(reply) instanceof Unavailable u}), or null for any other reply. */
  static Refusal refusal(Object reply) {
    return reply instanceof RefusedReply r ? r.refusal() : null;
  }

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static String s(byte[] b) {
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }
}
