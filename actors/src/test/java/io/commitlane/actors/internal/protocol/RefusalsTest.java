package io.commitlane.actors.internal.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.CommitQueueFullException;
import io.commitlane.actors.DatabaseProtocol.Failed;
import io.commitlane.actors.DatabaseProtocol.FailureReason;
import io.commitlane.actors.InvalidRequestException;
import io.commitlane.storage.CommitlaneException;
import org.junit.jupiter.api.Test;

class RefusalsTest {
  @Test
  void aFailureOfTheDatabasesOwnStateIsAStorageFailureNotABadRequest() {
    Failed f = assertInstanceOf(Failed.class, Refusals.of(new IllegalStateException("a frame claimed twice"), null));
    assertEquals(FailureReason.STORAGE, f.reason());
    assertFalse(f.retryable());
    assertTrue(f.message().contains("a frame claimed twice"), f.message());
  }

  @Test
  void malformedRequestsAreInvalidRequests() {
    assertEquals(FailureReason.INVALID_REQUEST, ((Failed) Refusals.of(new InvalidRequestException("no key"), null)).reason());
    assertEquals(FailureReason.INVALID_REQUEST, ((Failed) Refusals.of(new IllegalArgumentException("bad name"), null)).reason());
  }

  @Test
  void aFullQueueIsOverloadedAndRetryable() {
    Failed f = (Failed) Refusals.of(new CommitQueueFullException("db", 4), null);
    assertEquals(FailureReason.OVERLOADED, f.reason());
    assertTrue(f.retryable());
  }

  @Test
  void aStorageFailureIsRetryableWhenItsExceptionSaysSo() {
    CommitlaneException transientFailure = new CommitlaneException("busy") {
      @Override
      public boolean isRetryable() {
        return true;
      }
    };
    Failed f = (Failed) Refusals.of(transientFailure, null);
    assertEquals(FailureReason.STORAGE, f.reason());
    assertTrue(f.retryable());
  }
}
