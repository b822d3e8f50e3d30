package io.commitlane.actors;

import static io.commitlane.actors.PipelineTestSupport.b;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.commitlane.actors.internal.log.WriteSetCodec;
import io.commitlane.storage.internal.commit.CommitHook;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import io.commitlane.storage.internal.commit.PendingCommit;
import io.commitlane.storage.Store;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Replay's decoding: writes to a dropped store generation are left out and counted, never applied. */
class WriteSetCodecTest {
  @TempDir
  Path dir;

  @Test
  void writesToADroppedGenerationAreLeftOutEvenWhenTheNameWasCreatedAgain() throws Exception {
    try (Database db = Database.open(dir, DatabaseOptions.defaults().withWal(false))) {
      Store s = db.store("s");
      AtomicReference<ByteBuffer> record = new AtomicReference<>();
      db.addCommitHook(new CommitHook() {
        @Override
        public void beforeWrite(PendingCommit c) {
          record.set(WriteSetCodec.encode(c));
        }
      });
      db.begin().put(b("d"), b("1")).put(s, b("k"), b("2")).remove(s, b("gone")).commitSync();

      WriteSetCodec.Decoded live = WriteSetCodec.decode(record.get(), db);
      assertEquals(3, live.batch().size());
      assertEquals(0, live.skipped());

      db.dropStore("s").toCompletableFuture().get(30, TimeUnit.SECONDS);
      WriteSetCodec.Decoded dropped = WriteSetCodec.decode(record.get(), db);
      assertEquals(1, dropped.batch().size(), "only the default-store write is left");
      assertEquals(2, dropped.skipped());
      assertEquals(0, db.storeNames().stream().filter("s"::equals).count(), "decoding never creates a dropped store");

      Store again = db.store("s");
      WriteSetCodec.Decoded recreated = WriteSetCodec.decode(record.get(), db);
      assertEquals(1, recreated.batch().size(), "the new generation must not receive the old one's writes");
      assertEquals(2, recreated.skipped());

      // Format 1 (no generation): applied by name while the store exists, skipped when it does not.
      assertEquals(1, WriteSetCodec.decode(formatOne("s"), db).batch().size());
      WriteSetCodec.Decoded missing = WriteSetCodec.decode(formatOne("never"), db);
      assertEquals(0, missing.batch().size());
      assertEquals(1, missing.skipped());
      assertEquals(again, db.findStore("s").orElseThrow());
    }
  }

  private static ByteBuffer formatOne(String store) {
    byte[] name = store.getBytes(StandardCharsets.UTF_8);
    ByteBuffer b = ByteBuffer.allocate(4 + 2 + name.length + 4 + 1 + 4 + 1);
    b.putInt(1).putShort((short) name.length).put(name).putInt(1).put((byte) 'k').putInt(1).put((byte) 'v');
    return b.flip();
  }
}
