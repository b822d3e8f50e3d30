package io.commitlane.persistence.internal.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The commit-position clock: the watermark never passes an unsettled claim, and no position is used before its block is reserved. */
public class PositionsTest {
  /** Reservations the test completes by hand. */
  private final List<CompletableFuture<Void>> reservations = new ArrayList<>();
  private final List<Long> reserved = new ArrayList<>();

  private CompletionStage<?> reserve(long limit) {
    CompletableFuture<Void> f = new CompletableFuture<>();
    reserved.add(limit);
    reservations.add(f);
    return f;
  }

  @Test
  void noPositionIsHandedOutBeforeItsBlockIsReserved() {
    Positions p = new Positions(5_000, this::reserve);
    CompletableFuture<Long> first = p.claim(3).toCompletableFuture();
    assertFalse(first.isDone(), "the store's reservation (5000) is used up: the claim waits for the next block");
    assertEquals(List.of(5_000 + Positions.BLOCK), reserved);
    reservations.get(0).complete(null);
    assertEquals(5_000, first.join(), "positions start above everything reserved before the restart");
    assertEquals(5_003, p.claim(1).toCompletableFuture().join());
  }

  @Test
  void theWatermarkStopsAtTheOldestUnsettledClaim() {
    Positions p = new Positions(0, this::reserve);
    CompletableFuture<Long> a = p.claim(2).toCompletableFuture();
    reservations.get(0).complete(null);
    long b = p.claim(1).toCompletableFuture().join();
    long c = p.claim(1).toCompletableFuture().join();
    AtomicInteger wakeUps = new AtomicInteger();
    p.subscribe(wakeUps::incrementAndGet);
    assertEquals(0, p.watermark());

    p.settle(c);  // the newest commit finished first: a reader must not pass a or b yet
    assertEquals(0, p.watermark());
    assertEquals(0, wakeUps.get());
    p.settle(a.join());
    assertEquals(b, p.watermark());
    assertEquals(1, wakeUps.get());
    p.settle(b);
    assertEquals(c + 1, p.watermark(), "all settled: the watermark is past the last claim");
    assertEquals(2, wakeUps.get());
  }

  @Test
  void theNextBlockIsReservedInTheBackgroundAtHalfAndClaimsWaitOnlyPastTheEnd() {
    Positions p = new Positions(0, this::reserve);
    CompletableFuture<Long> first = p.claim(1).toCompletableFuture();
    reservations.get(0).complete(null);
    first.join();
    long half = Positions.BLOCK / 2;
    long last = p.claim((int) (half - 1)).toCompletableFuture().join();
    assertEquals(1, last);
    assertEquals(1, reserved.size());
    assertTrue(p.claim(1).toCompletableFuture().isDone());
    assertEquals(2, reserved.size(), "half the block is used: the next one is being reserved");
    CompletableFuture<Long> pastTheEnd = p.claim((int) half).toCompletableFuture();
    assertFalse(pastTheEnd.isDone(), "the block is used up while its successor is not reserved yet");
    reservations.get(1).complete(null);
    assertEquals(half + 1, pastTheEnd.join(), "positions stay consecutive across blocks");
  }

  @Test
  void aFailedReservationFailsTheWaitingClaimsAndTheNextClaimTriesAgain() {
    Positions p = new Positions(0, this::reserve);
    CompletableFuture<Long> waiting = p.claim(1).toCompletableFuture();
    reservations.get(0).completeExceptionally(new IllegalStateException("disk full"));
    assertTrue(waiting.isCompletedExceptionally());
    CompletableFuture<Long> again = p.claim(1).toCompletableFuture();
    assertEquals(2, reserved.size());
    reservations.get(1).complete(null);
    assertEquals(0, again.join());
  }

  @Test
  void settledThroughCompletesOnceTheWatermarkPassesThePosition() {
    Positions p = new Positions(0, this::reserve);
    CompletableFuture<Long> a = p.claim(1).toCompletableFuture();
    reservations.get(0).complete(null);
    long b = p.claim(1).toCompletableFuture().join();
    CompletableFuture<Void> throughB = p.settledThrough(b).toCompletableFuture();
    p.settle(b);
    assertFalse(throughB.isDone(), "b settled, but a below it did not: the watermark has not passed b");
    p.settle(a.join());
    assertTrue(throughB.isDone());
    assertTrue(p.settledThrough(b).toCompletableFuture().isDone(), "already passed: at once");
  }
}
