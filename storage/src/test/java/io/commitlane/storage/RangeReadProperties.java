package io.commitlane.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Scans against an in-memory model: a {@link TreeMap} in unsigned byte order holding the committed
 * data, and a copy with the transaction's own puts, removals and overwrites applied. Random
 * bounds (inclusive, exclusive, open), prefixes, both directions, limits, keys only or with
 * values, in the default store and in named stores. Keys are short and drawn from bytes that
 * stress unsigned order and prefix ends (0x00, 0x7F, 0x80, 0xFF). Every scan must return exactly
 * the model's entries, in order; a transaction's scan the merged model, a database's the
 * committed one; counts agree; paging with {@code after(lastKey)} reassembles the full scan.
 */
class RangeReadProperties {
  private static final Byte[] ALPHABET = {0x00, 0x01, 0x7F, (byte) 0x80, (byte) 0xFF};
  private static Path root;
  private static Database db;
  private static int run;

  record Write(byte[] key, byte[] value) {}

  /** lower/upper null = open; prefix non-null replaces both bounds. */
  record Bounds(byte[] lower, boolean lowerInclusive, byte[] upper, boolean upperInclusive, byte[] prefix) {}

  record Scenario(List<Write> committed, List<Write> own, Bounds bounds, boolean reverse, int limit, boolean keysOnly,
      boolean namedStore, int pageSize) {}

  @BeforeContainer
  static void open() throws IOException {
    root = Files.createTempDirectory("commitlane-range-model");
    db = Database.open(root.resolve("db"), DatabaseOptions.defaults().withWal(false));
  }

  @AfterContainer
  static void close() throws IOException {
    db.close();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  @Property(tries = 300)
  void scansMatchTheModel(@ForAll("scenarios") Scenario s) {
    Store store = s.namedStore() ? db.store("s" + (run++ % 3)) : db.defaultStore();
    clear(store);
    NavigableMap<byte[], byte[]> committed = new TreeMap<>(Arrays::compareUnsigned);
    Batch batch = Batch.create();
    for (Write w : s.committed()) {
      apply(committed, w);
      if (w.value() == null) {
        batch.remove(store, w.key());
      } else {
        batch.put(store, w.key(), w.value());
      }
    }
    db.write(batch);

    Optional<KeyRange> built = build(s, store);
    if (built.isEmpty()) {
      return; // bad bounds: build() asserted the typed error
    }
    KeyRange range = built.get();
    NavigableMap<byte[], byte[]> merged = new TreeMap<>(committed);
    try (Transaction txn = db.begin()) {
      for (Write w : s.own()) {
        apply(merged, w);
        if (w.value() == null) {
          txn.remove(store, w.key());
        } else {
          txn.put(store, w.key(), w.value());
        }
      }
      List<Map.Entry<byte[], byte[]>> expectedTxn = expected(merged, s);
      List<Map.Entry<byte[], byte[]>> expectedDb = expected(committed, s);

      assertSame(expectedTxn, txn.list(range), s.keysOnly(), "transaction scan of " + range);
      assertSame(expectedTxn, txn.scanUntracked(range).toList(), s.keysOnly(), "untracked transaction scan of " + range);
      assertEquals(expectedTxn.size(), txn.count(range), "transaction count of " + range);
      assertSame(expectedDb, db.list(range), s.keysOnly(), "database scan of " + range);
      assertEquals(expectedDb.size(), db.count(range), "database count of " + range);
      assertSame(expectedTxn, paged(txn, range, s.pageSize()), s.keysOnly(), "paged transaction scan of " + range);
      assertEquals(expectedTxn.size(), txn.list(range.keysOnly()).size(), "keys-only size of " + range);

      List<byte[]> keys = new ArrayList<>();
      for (Write w : s.own()) {
        keys.add(w.key());
      }
      for (Write w : s.committed()) {
        keys.add(w.key());
      }
      List<byte[]> got = txn.multiGet(store, keys);
      List<byte[]> gotDb = db.multiGet(store, keys);
      for (int i = 0; i < keys.size(); i++) {
        assertArrayEquals(merged.get(keys.get(i)), got.get(i), "transaction multiGet of " + hex(keys.get(i)));
        assertArrayEquals(committed.get(keys.get(i)), gotDb.get(i), "database multiGet of " + hex(keys.get(i)));
      }
    }
  }

  /** Pages of {@code pageSize} entries, each a new cursor on {@code range.after(lastKey)}, up to the range's own limit. */
  private static List<KeyValue> paged(Transaction txn, KeyRange range, int pageSize) {
    List<KeyValue> all = new ArrayList<>();
    KeyRange rest = range;
    int left = range.limit() == 0 ? Integer.MAX_VALUE : range.limit();
    while (left > 0) {
      int want = Math.min(pageSize, left);
      List<KeyValue> page = txn.scan(rest.limit(want)).toList();
      all.addAll(page);
      left -= page.size();
      if (page.size() < want) {
        break;
      }
      rest = range.after(page.get(page.size() - 1).key());
    }
    return all;
  }

  private static void clear(Store store) {
    Batch b = Batch.create();
    for (KeyValue kv : db.list(KeyRange.all().in(store).keysOnly())) {
      b.remove(store, kv.key());
    }
    if (!db.list(KeyRange.all().in(store).keysOnly().limit(1)).isEmpty()) {
      db.write(b);
    }
  }

  private static Optional<KeyRange> build(Scenario s, Store store) {
    Bounds b = s.bounds();
    KeyRange r;
    if (b.prefix() != null) {
      r = KeyRange.prefix(b.prefix());
    } else {
      if (b.lower() != null && b.upper() != null && Arrays.compareUnsigned(b.lower(), b.upper()) > 0) {
        assertThrows(InvalidRangeException.class, () -> bounded(b));
        return Optional.empty();
      }
      r = bounded(b);
    }
    r = r.in(store);
    r = s.reverse() ? r.reverse() : r;
    r = s.limit() > 0 ? r.limit(s.limit()) : r;
    return Optional.of(s.keysOnly() ? r.keysOnly() : r);
  }

  private static KeyRange bounded(Bounds b) {
    KeyRange r = KeyRange.all();
    if (b.lower() != null) {
      r = b.lowerInclusive() ? r.from(b.lower()) : r.fromExclusive(b.lower());
    }
    if (b.upper() != null) {
      r = b.upperInclusive() ? r.toInclusive(b.upper()) : r.to(b.upper());
    }
    return r;
  }

  /** The model's answer, computed from the bounds directly (not from KeyRange's own arithmetic). */
  private static List<Map.Entry<byte[], byte[]>> expected(NavigableMap<byte[], byte[]> model, Scenario s) {
    Bounds b = s.bounds();
    List<Map.Entry<byte[], byte[]>> out = new ArrayList<>();
    for (Map.Entry<byte[], byte[]> e : s.reverse() ? model.descendingMap().entrySet() : model.entrySet()) {
      byte[] k = e.getKey();
      boolean in;
      if (b.prefix() != null) {
        in = k.length >= b.prefix().length && Arrays.equals(Arrays.copyOf(k, b.prefix().length), b.prefix());
      } else {
        int lo = b.lower() == null ? 1 : Arrays.compareUnsigned(k, b.lower());
        int hi = b.upper() == null ? -1 : Arrays.compareUnsigned(k, b.upper());
        in = (lo > 0 || lo == 0 && b.lowerInclusive()) && (hi < 0 || hi == 0 && b.upperInclusive());
      }
      if (in && (s.limit() == 0 || out.size() < s.limit())) {
        out.add(e);
      }
    }
    return out;
  }

  private static void assertSame(List<Map.Entry<byte[], byte[]>> expected, List<KeyValue> actual, boolean keysOnly, String what) {
    assertEquals(render(expected, keysOnly), renderKv(actual), what);
  }

  private static List<String> render(List<Map.Entry<byte[], byte[]>> entries, boolean keysOnly) {
    return entries.stream().map(e -> hex(e.getKey()) + "=" + (keysOnly ? "-" : hex(e.getValue()))).toList();
  }

  private static List<String> renderKv(List<KeyValue> entries) {
    return entries.stream().map(e -> hex(e.key()) + "=" + (e.value() == null ? "-" : hex(e.value()))).toList();
  }

  private static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }

  private static void apply(NavigableMap<byte[], byte[]> model, Write w) {
    if (w.value() == null) {
      model.remove(w.key());
    } else {
      model.put(w.key(), w.value());
    }
  }

  @Provide
  Arbitrary<Scenario> scenarios() {
    Arbitrary<byte[]> key = Arbitraries.of(ALPHABET).list().ofMinSize(0).ofMaxSize(3).map(RangeReadProperties::bytes);
    Arbitrary<byte[]> nonEmptyKey = Arbitraries.of(ALPHABET).list().ofMinSize(1).ofMaxSize(3).map(RangeReadProperties::bytes);
    Arbitrary<byte[]> value = Arbitraries.integers().between(0, 255).map(i -> new byte[] {(byte) i.intValue(), 'v'});
    Arbitrary<Write> write = Combinators.combine(nonEmptyKey, value.injectNull(0.25)).as(Write::new);
    Arbitrary<byte[]> bound = key.injectNull(0.3);
    Arbitrary<Bounds> bounds = Combinators.combine(bound, Arbitraries.of(true, false), bound, Arbitraries.of(true, false),
        key.injectNull(0.75)).as(Bounds::new);
    return Combinators.combine(write.list().ofMaxSize(20), write.list().ofMaxSize(8), bounds, Arbitraries.of(true, false),
        Arbitraries.of(0, 0, 1, 2, 5), Arbitraries.of(true, false), Arbitraries.of(true, false), Arbitraries.of(1, 2, 3))
        .as(Scenario::new);
  }

  private static byte[] bytes(List<Byte> list) {
    byte[] b = new byte[list.size()];
    for (int i = 0; i < b.length; i++) {
      b[i] = list.get(i);
    }
    return b;
  }
}
