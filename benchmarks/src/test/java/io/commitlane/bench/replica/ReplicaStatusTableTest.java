package io.commitlane.bench.replica;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.replication.ReplicaReport;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** When `replica status` calls a group healthy (exit 0): an operator waits for it before restarting the next node. */
class ReplicaStatusTableTest {
  private static ReplicaReport replica(String id, String role, String leader) {
    return new ReplicaReport(id, true, role, leader, 2, 10, 10, 10, 0, null);
  }

  private static boolean healthy(List<ReplicaReport> reports, StringWriter text) {
    return ReplicaStatusCommand.print(new PrintWriter(text, true), "shop", reports);
  }

  @Test
  void aLeaderAndFollowersOfItAreHealthy() {
    StringWriter text = new StringWriter();
    assertTrue(healthy(List.of(replica("a", "FOLLOWER", "b"), replica("b", "LEADER", "b"), replica("c", "LISTENER", "b")), text),
        text.toString());
  }

  @Test
  void aCandidateBesideALeaderIsNotHealthy() {
    StringWriter text = new StringWriter();
    assertFalse(healthy(List.of(replica("a", "FOLLOWER", "b"), replica("b", "LEADER", "b"), replica("c", "CANDIDATE", null)), text));
    assertTrue(text.toString().contains("not every replica follows leader b yet"), text.toString());
  }

  @Test
  void aFollowerOfAnotherOrNoLeaderIsNotHealthy() {
    StringWriter text = new StringWriter();
    assertFalse(healthy(List.of(replica("a", "FOLLOWER", null), replica("b", "LEADER", "b"), replica("c", "FOLLOWER", "b")), text));
    assertFalse(healthy(List.of(replica("a", "FOLLOWER", "c"), replica("b", "LEADER", "b"), replica("c", "FOLLOWER", "b")), text));
  }

  @Test
  void noAnswerOrNoLeaderIsNotHealthy() {
    StringWriter text = new StringWriter();
    assertFalse(healthy(List.of(replica("a", "FOLLOWER", "b"), replica("b", "LEADER", "b"), new ReplicaReport("c", false, null, null, 0, 0, 0, 0, 0, "refused")), text));
    assertFalse(healthy(List.of(replica("a", "CANDIDATE", null), replica("b", "FOLLOWER", null)), text));
  }
}
