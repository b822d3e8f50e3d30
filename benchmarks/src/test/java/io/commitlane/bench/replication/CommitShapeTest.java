package io.commitlane.bench.replication;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.commitlane.bench.cluster.ShardedWriteLoad;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.PrimitiveIterator;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The keys of one throughput commit: drawn at random, never the same key twice (etcd refuses such a transaction). */
class CommitShapeTest {
  @Test
  void aKeyDrawnTwiceIsDrawnAgain() {
    Random repeating = scripted(7, 7, 3, 7, 3, 9);
    byte[][] keys = new CommitShape(3, CommitShape.Kind.BLIND).drawKeys(repeating);
    assertEquals(3, keys.length);
    assertArrayEquals(key(7), keys[0]);
    assertArrayEquals(key(3), keys[1]);
    assertArrayEquals(key(9), keys[2], "7 and 3 again were skipped");
  }

  @Test
  void sixteenKeysAreDistinctAndInTheKeySpace() {
    Random random = new Random(42);
    CommitShape shape = new CommitShape(16, CommitShape.Kind.BLIND);
    for (int commit = 0; commit < 1_000; commit++) {
      long[] keys = Arrays.stream(shape.drawKeys(random)).mapToLong(k -> ByteBuffer.wrap(k).getLong()).toArray();
      assertEquals(16, Arrays.stream(keys).distinct().count(), Arrays.toString(keys));
      assertEquals(16, Arrays.stream(keys).filter(k -> k >= 0 && k < ShardedWriteLoad.KEY_SPACE).count(), Arrays.toString(keys));
    }
  }

  private static byte[] key(long k) {
    return ByteBuffer.allocate(8).putLong(k).array();
  }

  /** A Random whose nextInt(bound) answers the given numbers in turn. */
  private static Random scripted(int... numbers) {
    PrimitiveIterator.OfInt next = IntStream.of(numbers).iterator();
    return new Random() {
      @Override
      public int nextInt(int bound) {
        return next.nextInt();
      }
    };
  }
}
