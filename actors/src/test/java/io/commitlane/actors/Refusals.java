package io.commitlane.actors;

import io.commitlane.actors.DatabaseProtocol.Failed;
import io.commitlane.actors.DatabaseProtocol.FailureReason;
import io.commitlane.actors.DatabaseProtocol.RefusedReply;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;

/** Test helpers for refused replies: what a probe receives when a request was not served. */
public final class Refusals {
  private Refusals() {}

  /** A refused reply whose refusal is a {@link Failed}: the reply (its type is its family's) and the failure. */
  public record FailedReply(RefusedReply reply, Failed failed) {
    public long correlation() {
      return reply.correlation();
    }

    public FailureReason reason() {
      return failed.reason();
    }

    public String message() {
      return failed.message();
    }

    public boolean retryable() {
      return failed.retryable();
    }
  }

  /** The next message of {@code probe}, which must be a refusal with a {@link Failed}. */
  public static FailedReply expectFailed(TestProbe<?> probe) {
    return failed(probe.receiveMessage());
  }

  /** {@link #expectFailed(TestProbe)}, waiting up to {@code max}. */
  public static FailedReply expectFailed(TestProbe<?> probe, Duration max) {
    return failed(probe.receiveMessage(max));
  }

  /** {@code reply}, which must be a refusal with a {@link Failed}. */
  public static FailedReply failed(Object reply) {
    if (reply instanceof RefusedReply r && r.refusal() instanceof Failed f) {
      return new FailedReply(r, f);
    }
    throw new AssertionError("expected a refusal with Failed, got " + reply);
  }
}
