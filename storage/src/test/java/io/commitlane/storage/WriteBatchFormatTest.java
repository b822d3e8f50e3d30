package io.commitlane.storage;

import static io.commitlane.storage.Bytes.of;
import static io.commitlane.storage.Bytes.str;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.commitlane.storage.internal.commit.WriteBatchFormat;
import io.commitlane.storage.internal.commit.WriteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/** The serialized batch is byte for byte what rocksdbjni's WriteBatch builds, and RocksDB applies it. */
class WriteBatchFormatTest {
  @TempDir
  Path dir;

  private Database open() {
    return Database.open(dir, DatabaseOptions.defaults().withWal(false));
  }

  /** What rocksdbjni builds with one call per write, for comparison. */
  private static byte[] reference(List<WriteBuffer> buffers) throws RocksDBException {
    try (WriteBatch batch = new WriteBatch()) {
      for (WriteBuffer w : buffers) {
        for (int i = 0; i < w.size(); i++) {
          if (w.value(i) == null) {
            batch.delete(w.store(i).handle(), w.key(i));
          } else {
            batch.put(w.store(i).handle(), w.key(i), w.value(i));
          }
        }
      }
      return batch.data();
    }
  }

  @Test
  void putsAndRemovesInTheDefaultAndNamedStoresMatchRocksDbsOwnBatch() throws RocksDBException {
    try (Database db = open()) {
      Store users = db.store("users");
      Store orders = db.store("orders");
      WriteBuffer a = new WriteBuffer(4);
      a.put(db.defaultStore(), of("k"), of("v"));
      a.put(users, of("alice"), of("admin"));
      a.put(orders, of("gone"), null);
      a.put(db.defaultStore(), of("removed"), null);
      WriteBuffer b = new WriteBuffer(4);
      b.put(users, of("empty"), new byte[0]);
      b.put(db.defaultStore(), new byte[0], of("empty key"));
      List<WriteBuffer> buffers = List.of(a, b);
      assertArrayEquals(reference(buffers), WriteBatchFormat.of(buffers));
      assertArrayEquals(reference(List.of(a)), WriteBatchFormat.of(a));
    }
  }

  /** Lengths on both sides of each varint32 byte boundary (127/128, 16383/16384), random contents. */
  @Test
  void lengthsAcrossVarintBoundariesMatchRocksDbsOwnBatch() throws RocksDBException {
    try (Database db = open()) {
      Random random = new Random(42);
      Store s = db.store("wide");
      WriteBuffer w = new WriteBuffer(4);
      int[] lengths = {0, 1, 127, 128, 129, 16_383, 16_384, 70_000};
      for (int i = 0; i < lengths.length; i++) {
        byte[] key = new byte[Math.min(lengths[i], 300) + 1];
        random.nextBytes(key);
        key[0] = (byte) i; // distinct keys
        byte[] value = new byte[lengths[lengths.length - 1 - i]];
        random.nextBytes(value);
        w.put(i % 2 == 0 ? s : db.defaultStore(), key, value);
      }
      assertArrayEquals(reference(List.of(w)), WriteBatchFormat.of(w));
    }
  }

  @Test
  void varintSizesMatchTheEncoding() {
    assertEquals(1, WriteBatchFormat.varint32Size(0));
    assertEquals(1, WriteBatchFormat.varint32Size(127));
    assertEquals(2, WriteBatchFormat.varint32Size(128));
    assertEquals(2, WriteBatchFormat.varint32Size(16_383));
    assertEquals(3, WriteBatchFormat.varint32Size(16_384));
    assertEquals(5, WriteBatchFormat.varint32Size(Integer.MAX_VALUE));
  }

  /** Through the commit path: a multi-key commit and a merged group land whole, removals included. */
  @Test
  void aMultiKeyCommitAndAMergedGroupAreAppliedWhole() {
    try (Database db = open()) {
      Store users = db.store("users");
      db.begin().put(of("a"), of("1")).put(users, of("u"), of("2")).put(of("doomed"), of("x")).commitSync();
      List<Transaction> group = new ArrayList<>();
      group.add(db.begin().put(of("b"), of("3")).remove(of("doomed")));
      group.add(db.begin().put(users, of("v"), of("4")).remove(users, of("u")));
      group.add(db.begin().put(of("c"), of("5")));
      GroupResult r = db.commitGroup(group);
      for (int i = 0; i < group.size(); i++) {
        assertNull(r.failure(i), "member " + i);
      }
      assertEquals("1", str(db.get(of("a"))));
      assertEquals("3", str(db.get(of("b"))));
      assertEquals("5", str(db.get(of("c"))));
      assertNull(db.get(of("doomed")));
      assertNull(db.get(users, of("u")));
      assertEquals("4", str(db.get(users, of("v"))));
      assertEquals(List.of(1L, 2L, 3L), Arrays.stream(new int[] {0, 1, 2}).mapToObj(i -> r.result(i).version() - r.result(0).version() + 1).toList());
    }
  }
}
