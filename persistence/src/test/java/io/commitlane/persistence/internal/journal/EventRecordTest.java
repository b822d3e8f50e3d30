package io.commitlane.persistence.internal.journal;

import io.commitlane.persistence.internal.plugin.PayloadCodec;
import io.commitlane.persistence.internal.store.Keys;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.commitlane.persistence.InvalidNameException;
import io.commitlane.persistence.internal.plugin.PayloadCodec.Serialized;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Stored events read back as written, also when a replay reuses the strings of the event before; names to key bytes. */
public class EventRecordTest {
  @Test
  void aReplayThatReusesTheStringsOfTheEventBeforeReadsEachEventAsWritten() {
    List<EventRecord> written = List.of(
        record(1, "writer-a", "", "m1", List.of()),
        record(2, "writer-a", "", "m1", List.of("t")),
        record(3, "writer-b", "adapted", "m1", List.of()),
        record(4, "writer-b", "adapted", "m2", List.of("t", "u")),
        record(5, "writer-a", "", "", List.of()),
        record(6, "writer-ä", "", "", List.of()));
    PayloadCodec.Reuse reuse = new PayloadCodec.Reuse();
    for (EventRecord e : written) {
      EventRecord read = EventRecord.decode(e.sequenceNr(), e.encode(), reuse);
      assertEquals(e.writerUuid(), read.writerUuid(), "event " + e.sequenceNr());
      assertEquals(e.adapterManifest(), read.adapterManifest(), "event " + e.sequenceNr());
      assertEquals(e.payload().manifest(), read.payload().manifest(), "event " + e.sequenceNr());
      assertArrayEquals(e.payload().bytes(), read.payload().bytes(), "event " + e.sequenceNr());
      assertEquals(e.tags(), read.tags(), "event " + e.sequenceNr());
      assertEquals(e.timestamp(), read.timestamp());
    }
  }

  @Test
  void aNameIsItsUtf8BytesAndOneWithAnUnpairedSurrogateIsRefused() {
    for (String name : List.of("p-1", "entity|ä|€", "emoji-\uD83D\uDE00", "nul\u0000byte")) {
      assertArrayEquals(name.getBytes(StandardCharsets.UTF_8), Keys.utf8("persistence id", name), name);
    }
    assertThrows(InvalidNameException.class, () -> Keys.utf8("persistence id", "half-\uD83D"));
    assertThrows(InvalidNameException.class, () -> Keys.utf8("persistence id", "\uDE00-low-first"));
  }

  private static EventRecord record(long seq, String writer, String adapter, String manifest, List<String> tags) {
    return new EventRecord(seq, 1000 + seq, -1, writer, adapter, new Serialized(4, manifest, new byte[] {(byte) seq, 7}), tags,
        null);
  }
}
