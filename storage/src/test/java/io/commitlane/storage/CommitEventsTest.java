package io.commitlane.storage;

import static io.commitlane.storage.Bytes.of;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The storage commit path's Flight Recorder events, read back from a real recording: validation
 * with its outcome, the RocksDB write (shared by a merged group's members) and a store drop.
 */
class CommitEventsTest {
  @TempDir Path dir;

  private static final List<String> NAMES = List.of("io.commitlane.CommitValidated", "io.commitlane.LogAppended",
      "io.commitlane.CommitWritten", "io.commitlane.StoreDropped");

  @Test
  void aMergedGroupReportsEachMembersValidationAndTheSharedWrite() throws Exception {
    List<RecordedEvent> events;
    Transaction a;
    Transaction b;
    Transaction c;
    try (Recording recording = start(); Database db = open()) {
      a = db.begin().put(of("k"), of("A"));
      b = db.begin();
      b.getUntracked(of("elsewhere")); // b has a snapshot: its write of k conflicts with a's
      b.put(of("k"), of("B"));
      c = db.begin().put(of("other"), of("C")).put(of("more"), of("C"));
      GroupResult r = db.commitGroup(List.of(a, b, c));
      assertInstanceOf(ConflictException.class, r.failure(1));
      events = stopAndRead(recording);
    }
    Map<Long, RecordedEvent> validated = byTransaction(events, "io.commitlane.CommitValidated");
    assertEquals("VALIDATED", validated.get(a.id()).getString("outcome"));
    assertEquals("CONFLICTED", validated.get(b.id()).getString("outcome"));
    assertEquals("VALIDATED", validated.get(c.id()).getString("outcome"));
    assertEquals(2, validated.get(c.id()).getInt("keysWritten"));
    validated.values().forEach(e -> assertEquals(3, e.getInt("groupSize")));

    Map<Long, RecordedEvent> written = byTransaction(events, "io.commitlane.CommitWritten");
    assertEquals(2, written.size(), "the conflicted member is not written: " + written.keySet());
    for (Transaction t : List.of(a, c)) {
      RecordedEvent e = written.get(t.id());
      assertEquals("WRITTEN", e.getString("outcome"));
      assertEquals(3, e.getInt("groupSize"));
      assertEquals(dir.toString(), e.getString("database"));
      assertTrue(!e.getDuration().isNegative());
    }
    RecordedEvent wa = written.get(a.id());
    RecordedEvent wc = written.get(c.id());
    assertTrue(!wa.getStartTime().isAfter(wc.getEndTime()) && !wc.getStartTime().isAfter(wa.getEndTime()),
        "both span the group's one write");
    assertTrue(events.stream().noneMatch(e -> e.getEventType().getName().equals("io.commitlane.LogAppended")),
        "nothing was logged");
  }

  @Test
  void aLoneCommitAndAConflictReportValidationAndWrite() throws Exception {
    List<RecordedEvent> events;
    Transaction loser;
    Transaction winner;
    try (Recording recording = start(); Database db = open()) {
      loser = db.begin();
      loser.get(of("k"));
      winner = db.begin().put(of("k"), of("1"));
      winner.commitSync();
      loser.put(of("k"), of("2"));
      try {
        loser.commitSync();
      } catch (ConflictException expected) {
        // the event says so too
      }
      events = stopAndRead(recording);
    }
    Map<Long, RecordedEvent> validated = byTransaction(events, "io.commitlane.CommitValidated");
    assertEquals("VALIDATED", validated.get(winner.id()).getString("outcome"));
    assertEquals("CONFLICTED", validated.get(loser.id()).getString("outcome"));
    assertEquals(1, validated.get(loser.id()).getInt("keysRead"));
    assertEquals(1, validated.get(loser.id()).getInt("groupSize"));
    Map<Long, RecordedEvent> written = byTransaction(events, "io.commitlane.CommitWritten");
    assertEquals(List.of(winner.id()), List.copyOf(written.keySet()));
    assertEquals(1, written.get(winner.id()).getInt("keysWritten"));
  }

  @Test
  void aStoreDropIsReportedOnceItIsPhysical() throws Exception {
    List<RecordedEvent> events;
    int generation;
    try (Recording recording = start(); Database db = open()) {
      Store s = db.createStore("s").toCompletableFuture().get(30, TimeUnit.SECONDS);
      generation = s.generation();
      db.dropStore("s").toCompletableFuture().get(30, TimeUnit.SECONDS);
      events = stopAndRead(recording);
    }
    List<RecordedEvent> drops = named(events, "io.commitlane.StoreDropped");
    assertEquals(1, drops.size());
    RecordedEvent e = drops.get(0);
    assertEquals("s", e.getString("store"));
    assertEquals(generation, e.getLong("generation"));
    assertEquals("DROPPED", e.getString("outcome"));
    assertEquals(dir.toString(), e.getString("database"));
    assertTrue(!e.getDuration().isNegative());
  }

  private Database open() {
    return Database.open(dir, DatabaseOptions.defaults().withWal(false));
  }

  private static Recording start() {
    Recording r = new Recording();
    for (String name : NAMES) {
      r.enable(name).withoutThreshold();
    }
    r.start();
    return r;
  }

  private List<RecordedEvent> stopAndRead(Recording r) throws IOException {
    r.stop();
    Path file = dir.resolve("events.jfr");
    r.dump(file);
    return RecordingFile.readAllEvents(file);
  }

  private static List<RecordedEvent> named(List<RecordedEvent> events, String name) {
    return events.stream().filter(e -> e.getEventType().getName().equals(name)).toList();
  }

  private static Map<Long, RecordedEvent> byTransaction(List<RecordedEvent> events, String name) {
    return named(events, name).stream().collect(Collectors.toMap(e -> e.getLong("transactionId"), e -> e));
  }
}
