package io.commitlane.persistence;

import static io.commitlane.persistence.JournalProtocol.atomic;
import static io.commitlane.persistence.JournalProtocol.event;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.apache.pekko.persistence.JournalProtocol.WriteMessageFailure;
import org.apache.pekko.persistence.JournalProtocol.WriteMessageRejected;
import org.apache.pekko.persistence.JournalProtocol.WriteMessageSuccess;
import org.apache.pekko.persistence.JournalProtocol.WriteMessagesFailed;
import org.apache.pekko.persistence.JournalProtocol.WriteMessagesSuccessful$;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input to the journal: each write that cannot be stored gets a clear outcome of its own (a rejection, or a typed
 * failure for a second writer), and nothing else in its batch or in the journal is lost.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JournalBadInputTest {
  @TempDir
  static Path dir;
  private PluginSystem plugins;
  private JournalProtocol journal;

  @BeforeAll
  void start() {
    // A small log segment, so that the largest commit (one log record) is small enough to exceed in a test.
    plugins = new PluginSystem(dir.resolve("db"), "commitlane.txlog.max-segment-size = 256 KiB");
  }

  @BeforeEach
  void newProbe() {
    journal = new JournalProtocol(plugins);
  }

  @AfterAll
  void stop() {
    plugins.close();
  }

  @Test
  void anUnserializableEventRejectsOnlyItsOwnWrite() {
    Object notSerializable = new Object();
    journal.write(atomic(event("u", 1, "one")), atomic(event("u", 2, notSerializable), event("u", 3, "in the same persistAll")),
        atomic(event("u", 4, "four")));
    journal.expect(WriteMessagesSuccessful$.class);
    journal.expect(WriteMessageSuccess.class);
    WriteMessageRejected rejected = journal.expect(WriteMessageRejected.class);
    assertEquals(2, ((org.apache.pekko.persistence.PersistentRepr) rejected.message()).sequenceNr());
    assertTrue(rejected.cause().getMessage().contains("java.lang.Object"), rejected.cause().toString());
    journal.expect(WriteMessageRejected.class);  // the persistAll is all or nothing
    journal.expect(WriteMessageSuccess.class);
    assertEquals(List.of("one", "four", "highest=4"), journal.replay("u"));
  }

  @Test
  void anIdWithNoLosslessUtf8FormIsRejectedAndUnusualIdsWork() {
    String unpaired = "entity-\uD83D";
    String unusual = "tenant/ä \u0000 \n 👍 \\ \"quoted\"";
    journal.write(atomic(event(unpaired, 1, "x")), atomic(event(unusual, 1, "kept")), atomic(event(unusual + "x", 1, "other")));
    journal.expect(WriteMessagesSuccessful$.class);
    WriteMessageRejected rejected = journal.expect(WriteMessageRejected.class);
    assertInstanceOf(InvalidNameException.class, rejected.cause());
    journal.expect(WriteMessageSuccess.class);
    journal.expect(WriteMessageSuccess.class);
    assertEquals(List.of("kept", "highest=1"), journal.replay(unusual));
    assertEquals(List.of("other", "highest=1"), journal.replay(unusual + "x"));
  }

  @Test
  void aWriteLargerThanTheLargestLogRecordIsRejectedAndTheJournalGoesOn() {
    journal.write(atomic(event("big", 1, "small")), atomic(event("big", 2, "x".repeat(300 * 1024))), atomic(event("big", 3, "small again")));
    journal.expect(WriteMessagesSuccessful$.class);
    journal.expect(WriteMessageSuccess.class);
    WriteMessageRejected rejected = journal.expect(WriteMessageRejected.class);
    assertInstanceOf(WriteTooLargeException.class, rejected.cause());
    assertTrue(rejected.cause().getMessage().contains("max-segment-size"), rejected.cause().getMessage());
    journal.expect(WriteMessageSuccess.class);
    assertEquals(List.of("small", "small again", "highest=3"), journal.replay("big"));
  }

  @Test
  void sequenceNumbersPekkoNeverSendsAreRejected() {
    journal.write(atomic(event("seq", 0, "zero")), atomic(event("seq", 1, "a"), event("seq", 3, "gap")),
        atomic(event("seq", 1, "fine")));
    journal.expect(WriteMessagesSuccessful$.class);
    assertInstanceOf(InvalidSequenceNumberException.class, journal.expect(WriteMessageRejected.class).cause());
    assertInstanceOf(InvalidSequenceNumberException.class, journal.expect(WriteMessageRejected.class).cause());
    journal.expect(WriteMessageRejected.class);
    journal.expect(WriteMessageSuccess.class);
    assertEquals(List.of("fine", "highest=1"), journal.replay("seq"));
  }

  @Test
  void aSecondWriterOfAnIdFailsWithATypedErrorAndWritesNothing() {
    journal.write(atomic(event("twice", 1, "first"), event("twice", 2, "second")));
    journal.expect(WriteMessagesSuccessful$.class);
    journal.expect(WriteMessageSuccess.class);
    journal.expect(WriteMessageSuccess.class);
    // another incarnation that recovered before these were written starts at 2 again
    journal.write(atomic(event("twice", 2, "stale"), event("twice", 3, "stale too")));
    WriteMessagesFailed failed = journal.expect(WriteMessagesFailed.class);
    WriterConflictException conflict = assertInstanceOf(WriterConflictException.class, failed.cause());
    assertEquals(2, conflict.highestStored());
    journal.expect(WriteMessageFailure.class);
    journal.expect(WriteMessageFailure.class);
    assertEquals(List.of("first", "second", "highest=2"), journal.replay("twice"));
  }

  @Test
  void aTaggedStateTooLargeToStoreFailsAloneAndLeavesChangeQueriesGoing() {
    @SuppressWarnings("unchecked")
    io.commitlane.persistence.javadsl.CommitlaneDurableStateStore<Object> store =
        org.apache.pekko.persistence.state.DurableStateStoreRegistry.get(plugins.system().classicSystem())
            .getDurableStateStoreFor(io.commitlane.persistence.javadsl.CommitlaneDurableStateStore.class,
                io.commitlane.persistence.javadsl.CommitlaneDurableStateStore.IDENTIFIER);
    assertInstanceOf(WriteTooLargeException.class, PluginSystem.failure(store.upsertObject("huge", 1, "x".repeat(300 * 1024),
        "sized")));
    PluginSystem.await(store.upsertObject("small", 1, "fits", "sized"));
    // the failed write's commit position is settled, so the query's bound passes it and reaches the next change
    assertEquals(List.of("small:1:fits"), DurableStateStoreTest.describe(PluginSystem.await(store.currentChanges("sized",
        org.apache.pekko.persistence.query.NoOffset.getInstance()).runWith(org.apache.pekko.stream.javadsl.Sink.seq(),
        plugins.system()))));
  }
}
