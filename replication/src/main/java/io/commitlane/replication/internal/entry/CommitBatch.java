package io.commitlane.replication.internal.entry;

import io.commitlane.replication.MalformedEntryException;
import io.commitlane.replication.internal.apply.ApplyOutcome;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Several replicated commits in one Raft entry: what a handle sends when commits queued behind an
 * entry in flight. Each commit keeps its own bytes ({@link ReplicatedCommit#encode}) and is
 * validated and applied on its own, in its slot's order, at every replica; the entry's outcomes
 * come back together and each commit is answered with its own.
 *
 * <p>An entry of one commit keeps the single-commit format, which replicas have always read.
 */
public final class CommitBatch {
  /**
   * The first byte of a batched entry; a single commit starts with its own format byte, 1 to 3
   * (see {@link ReplicatedCommit}), so no single commit reads as a batch.
   */
  public static final byte FORMAT = 4;

  private CommitBatch() {}

  /** One entry holding {@code commits} (each an encoded {@link ReplicatedCommit}), in order. */
  public static byte[] encode(List<byte[]> commits) {
    if (commits.size() == 1) {
      return commits.get(0);
    }
    int size = 1 + 4;
    for (byte[] c : commits) {
      size += 4 + c.length;
    }
    ByteBuffer b = ByteBuffer.allocate(size).put(FORMAT).putInt(commits.size());
    for (byte[] c : commits) {
      b.putInt(c.length).put(c);
    }
    return b.array();
  }

  /** The bytes an encoded batch of {@code commits} of {@code bytes} in all takes. */
  static long encodedSize(int commits, long bytes) {
    return commits <= 1 ? bytes : 1 + 4 + 4L * commits + bytes;
  }

  /** Whether {@code entry} is a batch (else a single commit). */
  public static boolean isBatch(byte[] entry) {
    return entry.length > 0 && entry[0] == FORMAT;
  }

  /**
   * The commits of an entry: itself when it is a single commit.
   *
   * @throws MalformedEntryException if a batch's counts or lengths do not fit its bytes
   */
  public static List<byte[]> decode(byte[] entry) {
    if (!isBatch(entry)) {
      return List.of(entry);
    }
    try {
      ByteBuffer b = ByteBuffer.wrap(entry, 1, entry.length - 1);
      int n = b.getInt();
      if (n < 0 || n > b.remaining() / 4) {
        throw new MalformedEntryException("a batch of " + n + " commits in an entry of " + entry.length + " bytes");
      }
      List<byte[]> commits = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        int len = b.getInt();
        if (len < 0 || len > b.remaining()) {
          throw new MalformedEntryException("commit " + i + " of the batch claims " + len + " bytes; " + b.remaining() + " remain");
        }
        byte[] c = new byte[len];
        b.get(c);
        commits.add(c);
      }
      if (b.hasRemaining()) {
        throw new MalformedEntryException(b.remaining() + " bytes follow the batch's last commit");
      }
      return commits;
    } catch (BufferUnderflowException e) {
      throw new MalformedEntryException("a batched entry ends early (" + entry.length + " bytes)");
    }
  }

  /**
   * Splits queued commits (their encoded sizes, in order) into entries of at most {@code maxBytes}
   * encoded and {@code maxCommits} commits each, keeping their order. A commit larger than {@code
   * maxBytes} on its own goes alone in its entry. Returns how many commits each entry takes.
   */
  static List<Integer> split(List<Integer> sizes, long maxBytes, int maxCommits) {
    List<Integer> entries = new ArrayList<>();
    int count = 0;
    long bytes = 0;
    for (int size : sizes) {
      if (count > 0 && (count == maxCommits || encodedSize(count + 1, bytes + size) > maxBytes)) {
        entries.add(count);
        count = 0;
        bytes = 0;
      }
      count++;
      bytes += size;
    }
    if (count > 0) {
      entries.add(count);
    }
    return entries;
  }

  /** The reply to a batched entry: each commit's outcome, in slot order. */
  public static byte[] encodeOutcomes(List<ApplyOutcome> outcomes) {
    List<byte[]> encoded = new ArrayList<>(outcomes.size());
    int size = 1 + 4;
    for (ApplyOutcome o : outcomes) {
      byte[] e = o.encode();
      encoded.add(e);
      size += 4 + e.length;
    }
    ByteBuffer b = ByteBuffer.allocate(size).put(FORMAT).putInt(outcomes.size());
    for (byte[] e : encoded) {
      b.putInt(e.length).put(e);
    }
    return b.array();
  }

  /** The outcomes of a batched entry's reply (the sender knows the entry was a batch: a single outcome's first byte may be anything). */
  public static List<ApplyOutcome> decodeOutcomes(byte[] reply) {
    ByteBuffer b = ByteBuffer.wrap(reply, 1, reply.length - 1);
    int n = b.getInt();
    if (n < 0 || n > b.remaining() / 4) {
      throw new MalformedEntryException("a batch's reply of " + n + " outcomes in " + reply.length + " bytes");
    }
    List<ApplyOutcome> outcomes = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int len = b.getInt();
      if (len < 0 || len > b.remaining()) {
        throw new MalformedEntryException("outcome " + i + " of a batch's reply claims " + len + " bytes; " + b.remaining() + " remain");
      }
      byte[] e = new byte[len];
      b.get(e);
      outcomes.add(ApplyOutcome.decode(e));
    }
    return outcomes;
  }
}
