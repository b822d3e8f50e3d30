package io.commitlane.replication.actors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.commitlane.actors.CommitQueueFullException;
import io.commitlane.actors.DatabaseProtocol.Failed;
import io.commitlane.actors.DatabaseProtocol.FailureReason;
import io.commitlane.actors.DatabaseProtocol.Unavailable;
import io.commitlane.actors.InvalidRequestException;
import io.commitlane.actors.internal.protocol.Refusals;
import io.commitlane.replication.ReplicaUnavailableException;
import io.commitlane.replication.actors.internal.protocol.ReplicatedRequests;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** A replicated database refuses a failure the protocol knows as a local database does. */
class ReplicatedRefusalsTest {
  @Test
  void failuresBothKindsOfDatabaseCanHaveAreRefusedAlike() {
    for (RuntimeException e : List.of(new IllegalStateException("a frame claimed twice"), new InvalidRequestException("no key"),
        new IllegalArgumentException("bad name"), new CommitQueueFullException("db", 4))) {
      assertEquals(Refusals.of(e, null), ReplicatedRequests.refusal(new CompletionException(e)), e.toString());
    }
  }

  @Test
  void aStateFailureIsAStorageFailure() {
    Failed f = assertInstanceOf(Failed.class, ReplicatedRequests.refusal(new IllegalStateException("reader is closed")));
    assertEquals(FailureReason.STORAGE, f.reason());
  }

  @Test
  void aReplicaThatDoesNotAnswerIsUnavailable() {
    assertInstanceOf(Unavailable.class, ReplicatedRequests.refusal(new ReplicaUnavailableException("no leader")));
  }
}
