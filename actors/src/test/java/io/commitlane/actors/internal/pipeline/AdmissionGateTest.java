package io.commitlane.actors.internal.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Close drains what was admitted and refuses the rest, also with refused admissions racing the last completion. */
class AdmissionGateTest {
  @Test
  void closeWaitsForTheAdmittedAndRefusesNewOnes() {
    AdmissionGate gate = new AdmissionGate();
    assertTrue(gate.tryAdmit());
    assertTrue(gate.tryAdmit());
    CompletableFuture<Void> drained = gate.close();
    assertFalse(gate.tryAdmit(), "closed: refused");
    assertEquals(2, gate.inFlight());
    gate.completed();
    assertFalse(drained.isDone());
    gate.completed();
    assertTrue(drained.isDone());
    assertFalse(gate.tryAdmit());
    assertEquals(0, gate.inFlight());
    assertTrue(gate.close().isDone(), "idempotent");
  }

  @Test
  void aClosedGateWithNothingAdmittedIsDrainedAtOnce() {
    AdmissionGate gate = new AdmissionGate();
    assertTrue(gate.close().isDone());
    assertFalse(gate.tryAdmit());
    assertEquals(0, gate.inFlight());
  }

  @Test
  void refusedAdmissionsRacingTheLastCompletionLeaveTheGateDrained() throws Exception {
    for (int round = 0; round < 200; round++) {
      AdmissionGate gate = new AdmissionGate();
      assertTrue(gate.tryAdmit());
      CompletableFuture<Void> drained = gate.close();
      CountDownLatch start = new CountDownLatch(1);
      List<Thread> refused = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        Thread t = new Thread(() -> {
          try {
            start.await();
          } catch (InterruptedException e) {
            return;
          }
          for (int k = 0; k < 100; k++) {
            assertFalse(gate.tryAdmit());
          }
        });
        refused.add(t);
        t.start();
      }
      start.countDown();
      gate.completed();
      for (Thread t : refused) {
        t.join();
      }
      drained.get(1, TimeUnit.MINUTES);
      assertEquals(0, gate.inFlight(), "round " + round);
    }
  }
}
