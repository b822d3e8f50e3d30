package io.commitlane.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.storage.Database;
import io.commitlane.txlog.LogReader;
import io.commitlane.txlog.LogRecord;
import io.commitlane.txlog.ReadRequest;
import io.commitlane.txlog.TransactionLog;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorSystem;

/** What a reopen after killing {@link FsyncLogWorkload} must show, whatever the append mode. */
final class FsyncLogCrashCheck {
  private FsyncLogCrashCheck() {}

  static long maxAcknowledged(CrashRun run) {
    return run.acknowledgedNumbers().stream().mapToLong(Long::longValue).max().orElse(0);
  }

  /**
   * Reopens {@code dir}: no acknowledged commit is lost and none is partial (of commits 1 ..
   * {@code attemptedUpTo}), the log reads back in position order and holds every acknowledged
   * commit's record.
   */
  static void assertRecovered(ActorSystem<?> system, Path dir, String append, Set<String> acknowledged,
      long attemptedUpTo, String what) {
    Map<String, Map<String, String>> attempted = new LinkedHashMap<>();
    for (long i = 1; i <= attemptedUpTo; i++) {
      attempted.put(Long.toString(i), LoggedCommitsWorkload.writes(i));
    }
    try (CommitlaneDatabase db = Commitlane.get(system).open(dir, FsyncLogWorkload.settings(system, append))) {
      Database storage = db.storage();
      List<String> violations = RecoveryCheck.check(attempted, acknowledged, key -> {
        byte[] v = storage.get(key.getBytes(StandardCharsets.UTF_8));
        return v == null ? null : new String(v, StandardCharsets.UTF_8);
      });
      assertEquals(List.of(), violations.size() > 5 ? violations.subList(0, 5) : violations, what);
      TransactionLog log = db.internalTransactionLog("main");
      List<Long> positions = new ArrayList<>();
      Set<String> logged = new HashSet<>();
      try (LogReader reader = log.reader(ReadRequest.fromStart())) {
        for (LogRecord r = reader.next(); r != null; r = reader.next()) {
          positions.add(r.position());
          byte[] e = new byte[r.entries().get(0).remaining()];
          r.entries().get(0).duplicate().get(e);
          logged.add(new String(e, StandardCharsets.UTF_8));
        }
      }
      List<Long> sorted = new ArrayList<>(positions);
      sorted.sort(null);
      assertEquals(sorted, positions, what + ": position order");
      Set<String> missing = new HashSet<>(acknowledged);
      missing.removeAll(logged);
      assertEquals(Set.of(), missing, what + ": acknowledged records missing from the log");
    }
  }
}
