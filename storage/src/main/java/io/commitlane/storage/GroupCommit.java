package io.commitlane.storage;

import io.commitlane.storage.internal.commit.PendingCommit;
import java.util.ArrayList;
import java.util.List;

/**
 * A merged write group: several transactions of one database committed with one RocksDB write
 * ({@link Database#commitGroup}). Each member joins (its own checks and hooks), the commit path
 * validates and writes those that joined, and each member leaves with its own outcome; a member
 * that fails before the write fails alone.
 */
final class GroupCommit {
  private GroupCommit() {}

  /** See {@link Database#commitGroup}. */
  static GroupResult commit(SharedDatabase shared, List<Transaction> members) {
    int n = members.size();
    GroupResult result = new GroupResult(n);
    List<PendingCommit> pending = new ArrayList<>(n);
    int[] positions = new int[n];
    for (int i = 0; i < n; i++) {
      Transaction t = members.get(i);
      try {
        PendingCommit c = t.joinGroup(shared);
        if (c == null) {
          result.committed(i, new CommitResult(t.id(), 0, null));
        } else {
          positions[pending.size()] = i;
          pending.add(c);
        }
      } catch (RuntimeException | Error e) {
        result.failed(i, e);
      }
    }
    Throwable[] failures = new Throwable[pending.size()];
    try {
      if (!pending.isEmpty()) {
        shared.commitPath().commitGroup(pending, failures);
      }
    } catch (RuntimeException | Error e) {
      for (int k = 0; k < failures.length; k++) {
        failures[k] = failures[k] == null ? e : failures[k];
      }
    } finally {
      for (int k = 0; k < pending.size(); k++) {
        int i = positions[k];
        CommitResult r = members.get(i).leaveGroup(pending.get(k), failures[k]);
        if (r != null) {
          result.committed(i, r);
        } else {
          result.failed(i, failures[k]);
        }
      }
    }
    return result;
  }
}
