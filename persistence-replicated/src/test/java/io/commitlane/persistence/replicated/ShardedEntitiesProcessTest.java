package io.commitlane.persistence.replicated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.commitlane.persistence.replicated.ShardedProcesses.Report;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three Pekko cluster nodes in processes of their own ({@link ShardedNode}), each hosting a voter replica of the
 * plugins' database, running sharded event-sourced entities and durable-state counters under load that every node
 * drives. One cluster for the class (short failure detection and downing, configured in {@link ShardedNode#config});
 * the scenarios run in order on it: a node killed, a node killed and wiped, a node frozen past the failure detector,
 * a rolling restart (every node stopped gracefully and restarted in turn), then the tag queries. Each scenario ends
 * with the same check: every event whose persist handler ran (its
 * {@code ACK}, printed after the reply) is in the entity's recovered state at its sequence number, the journal holds
 * exactly that state with sequence numbers 1..n on every node, no writer's events resume after another writer's, and
 * each counter's acknowledged counts are distinct and at most the count every node's store holds, at the revision
 * equal to it.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ShardedEntitiesProcessTest {
  private static final int ENTITIES = 6;
  private static final int COUNTERS = 3;
  /** Every node drives every entity and counter. */
  private static final String LOAD = "LOAD " + ENTITIES + " " + COUNTERS;
  /** Failure detection, downing and a shard's move to another node, on two cores other builds share. */
  private static final Duration MOVED_WITHIN = Duration.ofSeconds(60);
  private static final Duration ANSWER_WITHIN = Duration.ofSeconds(30);

  @TempDir static Path dir;
  private static ShardedProcesses nodes;
  /** Set when a scenario fails: the next ones would start from a cluster in an unknown state, and are skipped. */
  private static boolean failed;

  @BeforeEach
  void previousScenarioPassed() {
    assumeFalse(failed, "an earlier scenario failed on this cluster");
    failed = true; // cleared when the scenario ends
  }

  private static final long STARTED = System.nanoTime();

  /** Prints a step with the time since the class started (in the test's output file: where a slow run spent it). */
  private static void step(String what) {
    System.out.printf("[%6.1f s] %s%n", (System.nanoTime() - STARTED) / 1e9, what);
  }

  @BeforeAll
  static void start() {
    nodes = new ShardedProcesses(dir);
    step("three nodes Up");
    for (int n = 0; n < 3; n++) {
      nodes.send(n, LOAD);
    }
    step("load started");
  }

  @AfterAll
  static void stop() {
    if (nodes != null) {
      nodes.close();
    }
  }

  @Test
  @Order(1)
  void aKilledNodesEntitiesRecoverEveryPersistedEventOnTheirNewNodesAndTheNodeRejoinsOnItsDirectory() throws Exception {
    killAndRestart(false);
    failed = false;
  }

  @Test
  @Order(2)
  void aKilledNodeWhoseDirectoryIsWipedCatchesUpFromTheOthersAndHostsEntitiesAgain() throws Exception {
    killAndRestart(true);
    failed = false;
  }

  @Test
  @Order(3)
  void aFrozenNodePastTheFailureDetectorLosesItsEntitiesAndItsLateWritesAreRefused() throws Exception {
    int victim = awaitLoadAndPickHost();
    Set<String> moved = hostedBy(victim);
    long frozenAt = lastReport();
    step("freezing n" + (victim + 1) + ", which hosts " + moved);
    nodes.freeze(victim);
    awaitMovedAndPersisting(victim, moved, frozenAt);
    step("its entities persist on the others");
    // Queued while it is frozen: written as soon as it runs again, by an incarnation whose entity moved on.
    for (String id : moved) {
      nodes.send(victim, "LATE " + id);
    }
    nodes.thaw(victim);
    step("thawed");
    for (String id : moved) {
      Report late = nodes.awaitReport(victim, r -> r.words()[0].startsWith("LATE") && r.words()[1].equals(id),
          "the late write of " + id, ANSWER_WITHIN);
      String refusal = id.startsWith("d") ? "RevisionConflictException" : "WriterConflictException";
      assertEquals("LATE-REFUSED " + id + " " + refusal, late.text(),
          "the downed incarnation's next write, after its entity moved on");
    }
    step("its late writes refused");
    nodes.kill(victim);
    restartAndAwaitRejoined(victim);
    verify();
    failed = false;
  }

  /**
   * Every node in turn, as an operator deploys a new version: SIGTERM (coordinated shutdown: the node leaves, sharding
   * hands its shards off), then the node starts again on its directory, and the next goes only once it rejoined and
   * hosts entities. While a node is away, every entity and counter is acknowledged to both other nodes.
   */
  @Test
  @Order(4)
  void aRollingRestartOfEveryNodeKeepsTheLoadAcknowledgedAndLosesNoPersistedEvent() throws Exception {
    for (int node = 0; node < 3; node++) {
      String name = "n" + (node + 1);
      awaitLoadFromEveryNode();
      Set<String> moved = hostedBy(node);
      long stoppedAt = lastReport();
      step("stopping " + name + " (SIGTERM), which hosts " + moved);
      long start = System.nanoTime();
      Duration stop = nodes.stop(node);
      for (int other = 0; other < 3; other++) {
        if (other != node) {
          Report removed = nodes.awaitReport(other, r -> r.at() > stoppedAt && r.text().startsWith("REMOVED " + name + " "),
              name + " removed", ANSWER_WITHIN);
          assertEquals("REMOVED " + name + " Exiting", removed.text(), name + " left the cluster (never downed), as n"
              + (other + 1) + " saw it");
        }
      }
      step(name + " left the cluster and ended " + seconds(stop) + " s after SIGTERM");
      awaitMovedAndPersisting(node, moved, stoppedAt);
      awaitAcknowledgedWhileAway(node, lastReport());
      step("its entities persist on the others; every entity and counter acknowledged to both while it is away");
      long restarting = System.nanoTime();
      restartAndAwaitRejoined(node);
      step(name + " rejoined and hosts entities " + seconds(Duration.ofNanos(System.nanoTime() - restarting))
          + " s after its start; its restart took " + seconds(Duration.ofNanos(System.nanoTime() - start)) + " s");
    }
    verify();
    failed = false;
  }

  @Test
  @Order(5)
  void tagQueriesOnEveryNodeGiveTheSameEventsAtTheSameOffsets() throws Exception {
    halt();
    List<String> onFirst = null;
    for (int n = 0; n < 3; n++) {
      Path file = dir.resolve("tags-n" + (n + 1) + ".txt");
      long mark = lastReport();
      nodes.send(n, "TAGS " + file);
      Report r = nodes.awaitReport(n, x -> x.at() > mark && x.words()[0].startsWith("TAGS"), "TAGS", ANSWER_WITHIN);
      assertEquals("TAGS", r.words()[0], r.text());
      List<String> lines = Files.readAllLines(file);
      assertEquals(Integer.parseInt(r.words()[1]), lines.size());
      if (onFirst == null) {
        onFirst = lines;
      } else {
        assertEquals(onFirst, lines, "node n" + (n + 1) + "'s tag query");
      }
    }
    // Every event of every entity, each once, in each entity's sequence order, offsets increasing.
    Map<String, Long> lastSeq = new HashMap<>();
    long lastOffset = -1;
    for (String line : onFirst) {
      String[] w = line.split(" ");
      long offset = Long.parseLong(w[0]);
      assertTrue(offset > lastOffset, "offsets increase: " + line);
      lastOffset = offset;
      long seq = Long.parseLong(w[2]);
      assertEquals(lastSeq.getOrDefault(w[1], 0L) + 1, seq, "each entity's events in order: " + line);
      lastSeq.put(w[1], seq);
    }
    Map<String, Long> journals = new HashMap<>();
    for (int e = 0; e < ENTITIES; e++) {
      journals.put(ShardedRecorder.TYPE.name() + "|e" + e, (long) journal(0, "e" + e).size());
    }
    assertEquals(journals, lastSeq);
    failed = false;
  }

  /** Kills a node that hosts entities while they persist, optionally wipes its directory, restarts it, checks. */
  private void killAndRestart(boolean wipe) throws Exception {
    int victim = awaitLoadAndPickHost();
    Set<String> moved = hostedBy(victim);
    long killedAt = lastReport();
    step("killing n" + (victim + 1) + ", which hosts " + moved + (wipe ? ", then wiping its directory" : ""));
    nodes.kill(victim);
    awaitMovedAndPersisting(victim, moved, killedAt);
    step("its entities persist on the others");
    if (wipe) {
      nodes.wipe(victim);
    }
    restartAndAwaitRejoined(victim);
    verify();
  }

  /**
   * Restarts the stopped node and waits until it rejoined: it drives the load again, and sharding's rebalance gave it
   * an entity, which recovered there (its replica caught up: a restarted replica can wait seconds for the leader's
   * connection to it, in gRPC's reconnect backoff since the node went away).
   */
  private static void restartAndAwaitRejoined(int victim) {
    long restartedAt = lastReport();
    nodes.restart(victim);
    step("restarted");
    nodes.send(victim, LOAD);
    nodes.awaitReport(victim, r -> r.words()[0].equals("ACK"), "ACK after the restart", MOVED_WITHIN);
    nodes.awaitReport(victim, r -> r.at() > restartedAt && r.words()[0].equals("HOST"), "an entity after the restart",
        MOVED_WITHIN);
    step("it hosts entities again");
  }

  /**
   * Waits until every node has persisted through the load, then picks the node hosting the most entities, preferring
   * one that hosts both kinds (event-sourced and durable state).
   */
  private int awaitLoadAndPickHost() {
    awaitLoadFromEveryNode();
    int best = -1;
    for (int n = 0; n < 3; n++) {
      if (best < 0 || score(n) > score(best)) {
        best = n;
      }
    }
    assertFalse(hostedBy(best).isEmpty(), "some node hosts entities");
    return best;
  }

  /** Waits until every node persisted each entity through the load (an ACK from every node for every entity). */
  private static void awaitLoadFromEveryNode() {
    long from = lastReport();
    nodes.awaitReports(all -> {
      Set<String> acked = new HashSet<>();
      all.stream().filter(r -> r.at() > from && r.words()[0].equals("ACK")).forEach(r -> acked.add(r.node() + r.words()[1]));
      return acked.size() == 3 * ENTITIES;
    }, "an ACK from every node for every entity", MOVED_WITHIN);
  }

  /**
   * Waits until both nodes other than {@code away} had an event of every entity and an upsert of every counter
   * acknowledged after {@code since}.
   */
  private static void awaitAcknowledgedWhileAway(int away, long since) {
    nodes.awaitReports(all -> {
      Set<String> acked = new HashSet<>();
      all.stream().filter(r -> r.at() > since && r.node() != away
              && (r.words()[0].equals("ACK") || r.words()[0].equals("ADDED")))
          .forEach(r -> acked.add(r.node() + r.words()[1]));
      return acked.size() == 2 * (ENTITIES + COUNTERS);
    }, "an acknowledgement of every entity and counter to both nodes other than n" + (away + 1), MOVED_WITHIN);
  }

  private static String seconds(Duration d) {
    return String.format("%.1f", d.toMillis() / 1e3);
  }

  private static int score(int node) {
    Set<String> ids = hostedBy(node);
    boolean both = ids.stream().anyMatch(id -> id.startsWith("e")) && ids.stream().anyMatch(id -> id.startsWith("d"));
    return (both ? 100 : 0) + ids.size();
  }

  /** The entity ids whose latest recovery (in report order) was on {@code node}. */
  private static Set<String> hostedBy(int node) {
    Map<String, Integer> host = new LinkedHashMap<>();
    for (Report r : nodes.reports("HOST")) {
      host.put(r.words()[1].substring(r.words()[1].indexOf('|') + 1), r.node());
    }
    Set<String> ids = new HashSet<>();
    host.forEach((id, n) -> {
      if (n == node) {
        ids.add(id);
      }
    });
    return ids;
  }

  private static long lastReport() {
    List<Report> all = nodes.reports();
    return all.isEmpty() ? -1 : all.get(all.size() - 1).at();
  }

  /** Waits until each of {@code ids} recovered on another node after {@code since} and persisted there. */
  private static void awaitMovedAndPersisting(int victim, Set<String> ids, long since) {
    try {
      nodes.awaitReports(all -> movedAndPersisting(all, victim, ids, since).equals(ids),
          "entities " + ids + " of n" + (victim + 1) + " recovered and persisting on another node", MOVED_WITHIN);
    } catch (AssertionError e) {
      List<Report> all = nodes.reports();
      Map<String, Long> recovered = recoveredElsewhere(all, victim, ids, since);
      throw new AssertionError("recovered elsewhere (id=ms): " + recovered + ", and persisting since: "
          + movedAndPersisting(all, victim, ids, since) + "\n" + e.getMessage(), e);
    }
  }

  /** The first time each of {@code ids} was hosted on a node other than {@code victim} after {@code since}. */
  private static Map<String, Long> recoveredElsewhere(List<Report> all, int victim, Set<String> ids, long since) {
    Map<String, Long> recovered = new HashMap<>();
    for (Report r : all) {
      String id = r.words().length > 1 ? r.words()[1].substring(r.words()[1].indexOf('|') + 1) : "";
      if (r.at() > since && r.node() != victim && r.words()[0].equals("HOST") && ids.contains(id)) {
        recovered.putIfAbsent(id, r.at());
      }
    }
    return recovered;
  }

  /** Those of {@code ids} that recovered elsewhere and stored an event or a state after that. */
  private static Set<String> movedAndPersisting(List<Report> all, int victim, Set<String> ids, long since) {
    Map<String, Long> recovered = recoveredElsewhere(all, victim, ids, since);
    Set<String> persisting = new HashSet<>();
    for (Report r : all) {
      boolean stored = r.words()[0].equals("ACK") || r.words()[0].equals("ADDED");
      if (stored && recovered.containsKey(r.words()[1]) && r.at() > recovered.get(r.words()[1])) {
        persisting.add(r.words()[1]);
      }
    }
    return persisting;
  }

  /** Stops the load on every node and waits until nothing is in flight. */
  private static void halt() {
    long mark = lastReport();
    for (int n = 0; n < 3; n++) {
      nodes.send(n, "HALT");
    }
    for (int n = 0; n < 3; n++) {
      nodes.awaitReport(n, r -> r.at() > mark && r.words()[0].equals("HALTED"), "HALTED", ANSWER_WITHIN);
    }
  }

  /**
   * With the load halted: every acknowledged event is at its sequence number in the entity's state, as its running
   * incarnation recovered it; each node's journal holds that state, numbered 1..n; writers never interleave. Then
   * the load resumes.
   */
  private static void verify() {
    halt();
    step("load halted");
    Map<String, Map<Long, String>> acked = new HashMap<>();
    for (Report r : nodes.reports("ACK")) {
      String[] w = r.words();
      String before = acked.computeIfAbsent(w[1], k -> new HashMap<>()).put(Long.parseLong(w[2]), w[3]);
      assertTrue(before == null || before.equals(w[3]), "two events acknowledged at " + w[1] + "/" + w[2] + ": " + before
          + " and " + w[3]);
    }
    assertEquals(ENTITIES, acked.size());
    // Every question at once: each node answers them in turn, its journal reads sharing read barriers.
    long mark = lastReport();
    for (int e = 0; e < ENTITIES; e++) {
      nodes.send(0, "STATE e" + e);
      for (int n = 0; n < 3; n++) {
        nodes.send(n, "JOURNAL e" + e);
      }
    }
    for (int d = 0; d < COUNTERS; d++) {
      nodes.send(0, "COUNT d" + d);
      for (int n = 0; n < 3; n++) {
        nodes.send(n, "STORED d" + d);
      }
    }
    verifyCounters(mark);
    step("counters checked");
    for (int e = 0; e < ENTITIES; e++) {
      String id = "e" + e;
      List<String> state = state(id, mark);
      for (Map.Entry<Long, String> a : acked.get(id).entrySet()) {
        assertTrue(a.getKey() <= state.size() && state.get((int) (a.getKey() - 1)).equals(a.getValue()),
            id + ": acknowledged " + a.getValue() + " at " + a.getKey() + " is not in the recovered state");
      }
      for (int n = 0; n < 3; n++) {
        List<String[]> journal = journal(n, id, mark);
        List<String> events = new ArrayList<>();
        List<String> writers = new ArrayList<>();
        for (int i = 0; i < journal.size(); i++) {
          assertEquals(i + 1, Long.parseLong(journal.get(i)[0]), id + " on n" + (n + 1) + ": sequence numbers 1..n");
          events.add(journal.get(i)[2]);
          String writer = journal.get(i)[1];
          if (writers.isEmpty() || !writers.get(writers.size() - 1).equals(writer)) {
            assertFalse(writers.contains(writer), id + ": writer " + writer + " wrote again after another writer");
            writers.add(writer);
          }
        }
        assertEquals(state, events, id + ": the journal on n" + (n + 1) + " is the recovered state");
        assertTrue(events.stream().noneMatch(ev -> ev.startsWith("late.")), id + ": a late write was stored");
      }
    }
    step("entities checked");
    for (int n = 0; n < 3; n++) {
      nodes.send(n, LOAD);
    }
  }

  /**
   * Each count a counter acknowledged was acknowledged once (two writers never both stored one revision); the count
   * its running incarnation holds is at least the highest acknowledged; every node's store holds that count at the
   * revision equal to it (no upsert lost or doubled).
   */
  private static void verifyCounters(long mark) {
    Map<String, Set<Long>> added = new HashMap<>();
    for (Report r : nodes.reports("ADDED")) {
      assertTrue(added.computeIfAbsent(r.words()[1], k -> new HashSet<>()).add(Long.parseLong(r.words()[2])),
          r.words()[1] + ": count " + r.words()[2] + " acknowledged twice");
    }
    assertEquals(COUNTERS, added.size());
    for (int d = 0; d < COUNTERS; d++) {
      String id = "d" + d;
      Report count = nodes.awaitReport(0, x -> x.at() > mark && x.words()[0].startsWith("COUNT") && x.words()[1].equals(id),
          "COUNT " + id, ANSWER_WITHIN);
      assertEquals("COUNT", count.words()[0], count.text());
      long held = Long.parseLong(count.words()[2]);
      assertTrue(held >= added.get(id).stream().mapToLong(Long::longValue).max().orElse(0), id + " holds " + held);
      for (int n = 0; n < 3; n++) {
        Report stored = nodes.awaitReport(n, x -> x.at() > mark && x.words()[0].startsWith("STORED") && x.words()[1].equals(id),
            "STORED " + id, ANSWER_WITHIN);
        assertEquals("STORED " + id + " " + held + " " + held, stored.text(), "n" + (n + 1) + "'s store");
      }
    }
  }

  /**
   * The events the entity's running incarnation holds (asked through sharding from node 1 after {@code mark}). An
   * entity that is moving (a rebalance to a node that just rejoined) can miss an ask: asked again, up to 3 times.
   */
  private static List<String> state(String id, long mark) {
    long after = mark;
    for (int attempt = 1; ; attempt++) {
      long since = after;
      Report r = nodes.awaitReport(0, x -> x.at() > since && x.words()[0].startsWith("STATE") && x.words()[1].equals(id),
          "STATE " + id, ANSWER_WITHIN);
      if (r.words()[0].equals("STATE") || attempt == 3) {
        assertEquals("STATE", r.words()[0], r.text());
        return r.words().length < 3 ? List.of() : List.of(r.words()[2].split(","));
      }
      after = r.at();
      nodes.send(0, "STATE " + id);
    }
  }

  /** The entity's journal on {@code node} after a read barrier: {seq, writer, event} per event. */
  private static List<String[]> journal(int node, String id) {
    long mark = lastReport();
    nodes.send(node, "JOURNAL " + id);
    return journal(node, id, mark);
  }

  /** The entity's journal on {@code node} as reported after {@code mark}. */
  private static List<String[]> journal(int node, String id, long mark) {
    Report r = nodes.awaitReport(node, x -> x.at() > mark && x.words()[0].startsWith("JOURNAL") && x.words()[1].equals(id),
        "JOURNAL " + id, ANSWER_WITHIN);
    assertEquals("JOURNAL", r.words()[0], r.text());
    List<String[]> out = new ArrayList<>();
    if (r.words().length > 2) {
      for (String e : r.words()[2].split(",")) {
        out.add(e.split(":", 3));
      }
    }
    return out;
  }


}
