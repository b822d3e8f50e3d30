package io.commitlane.testkit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.ConflictException;
import io.commitlane.storage.Database;
import io.commitlane.storage.KeyRange;
import io.commitlane.storage.Transaction;
import io.commitlane.testkit.pekko.CommitlaneTest;
import io.commitlane.testkit.pekko.TestDatabase;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The phantom example of docs/testkit.md, run here; TestkitDocsTest checks that the page shows this code. */
// docs: phantom-example
@CommitlaneTest
class PhantomExampleTest {
  private static final KeyRange SEATS = KeyRange.prefix("seat/".getBytes(UTF_8));
  /** The same interval for the history checker: keys from "seat/" up to, not including, "seat0". */
  private static final History.RangeRead NO_SEAT_TAKEN = new History.RangeRead("seat/", "seat0", new TreeMap<>());

  /** One seat: book only if the scan finds it free. Both bookings scan before either commits. */
  private static List<String> bookBoth(Database db, boolean tracked, History history) {
    Transaction alice = db.begin();
    Transaction bob = db.begin();
    long seenByAlice = tracked ? alice.count(SEATS) : alice.scanUntracked(SEATS).toList().size();
    long seenByBob = tracked ? bob.count(SEATS) : bob.scanUntracked(SEATS).toList().size();
    assertEquals(0, seenByAlice + seenByBob);    // each saw the seat free
    alice.put("seat/alice".getBytes(UTF_8), "booked".getBytes(UTF_8));
    bob.put("seat/bob".getBytes(UTF_8), "booked".getBytes(UTF_8));
    long v1 = alice.commitSync().version();
    history.committed("alice", Map.of(), List.of(NO_SEAT_TAKEN), Map.of("seat/alice", "booked"), v1);
    long v2 = bob.commitSync().version();       // a tracked scan makes this throw
    history.committed("bob", Map.of(), List.of(NO_SEAT_TAKEN), Map.of("seat/bob", "booked"), v2);
    return history.check(null);
  }

  @Test
  void aTrackedScanTurnsThePhantomIntoAConflict(TestDatabase db) {
    History history = new History();
    assertThrows(ConflictException.class, () -> bookBoth(db.database().storage(), true, history));
    assertEquals(List.of(), history.check(null));           // alice alone: serializable
  }

  @Test
  void untrackedScansLetItThroughAndTheHistoryCheckerSaysSo(TestDatabase db) {
    List<String> violations = bookBoth(db.database().storage(), false, new History());
    assertTrue(violations.get(0).contains("phantom"), violations.get(0));  // both booked the one seat
  }
}
// end docs: phantom-example
