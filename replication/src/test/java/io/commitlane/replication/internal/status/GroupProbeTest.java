package io.commitlane.replication.internal.status;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.junit.jupiter.api.Test;

/** Which replicas a status probe reports as not answering. */
public class GroupProbeTest {
  private static final List<RaftPeer> PEERS = List.of(peer("n0"), peer("n1"), peer("n2"));

  private static RaftPeer peer(String id) {
    return RaftPeer.newBuilder().setId(RaftPeerId.valueOf(id)).setAddress("127.0.0.1:1").build();
  }

  /**
   * The asking process's own start (loading and starting gRPC, the first connections) delays
   * every replica's answer alike, on a busy machine past the 5 s a replica has to answer: every
   * answer here arrives 6 s after the question. None is reported as not answering.
   */
  @Test
  void everyReplicaAnswersWhenTheAskingProcessIsSlowForAllOfThemAlike() {
    try (GroupProbe probe = new GroupProbe("test")) {
      List<String> answers = probe.ask(PEERS, p -> {
        sleep(GroupProbe.TIMEOUT.toMillis() + 1000); // the asking process's own delay, the same for every replica
        return "answered " + p.getId();
      }, (p, error) -> "no answer from " + p.getId() + ": " + error);
      assertEquals(List.of("answered n0", "answered n1", "answered n2"), answers);
    }
  }

  /** A replica still silent 5 s after the others answered is frozen or cut off: reported as not answering, the others as answered. */
  @Test
  void aReplicaSilentLongAfterTheOthersAnsweredIsReportedAsNotAnswering() {
    CountDownLatch frozen = new CountDownLatch(1);
    try (GroupProbe probe = new GroupProbe("test")) {
      List<String> answers = probe.ask(PEERS, p -> {
        if (p.getId().toString().equals("n2")) {
          await(frozen); // never answers while the probe waits
        }
        return "answered " + p.getId();
      }, (p, error) -> "no answer from " + p.getId() + ": " + error);
      assertEquals("answered n0", answers.get(0));
      assertEquals("answered n1", answers.get(1));
      assertTrue(answers.get(2).startsWith("no answer from n2: no answer within 5000 ms of the first replica's answer"), answers.get(2));
    } finally {
      frozen.countDown();
    }
  }

  /**
   * A node of a one-node group asks no other member which group runs: with nobody asked there is
   * no first answer to wait {@link GroupProbe#FIRST_ANSWER} for, and hosting such a group must not
   * wait it out (the deadline here is a quarter of it, far above the microseconds the answer takes).
   */
  @Test
  void askingNoReplicaAnswersAtOnceWithNoAnswers() {
    try (GroupProbe probe = new GroupProbe("test")) {
      List<String> answers = assertTimeoutPreemptively(GroupProbe.FIRST_ANSWER.dividedBy(4), () -> probe.ask(List.<RaftPeer>of(),
          p -> "answered " + p.getId(), (p, error) -> "no answer from " + p.getId() + ": " + error));
      assertEquals(List.of(), answers);
    }
  }

  @Test
  void aHostNameIsGivenToTheClientAsALiteralAddress() {
    assertEquals("127.0.0.1:7001", GroupProbe.literal("localhost:7001").replace("[0:0:0:0:0:0:0:1]", "127.0.0.1"));
    assertEquals("127.0.0.1:7001", GroupProbe.literal("127.0.0.1:7001"));
    assertEquals("[::1]:7001", GroupProbe.literal("[::1]:7001"));
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis); // stands for a slow process start; the probe's deadline is measured in real time
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
