package io.commitlane.actors.projection;

import com.typesafe.config.ConfigFactory;
import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.actors.stream.ChangeFeed;
import io.commitlane.storage.Store;
import io.commitlane.storage.Transaction;
import io.commitlane.txlog.LogRecord;
import io.commitlane.txlog.ReadRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.stream.javadsl.Sink;

/**
 * The projection tests' shop: order records in log "orders", each with one entry naming a key
 * ({@code k0}..{@code k4}), and a projection that counts the records per key in store "model".
 * Exactly once means: each count equals the number of records of its key.
 */
final class Orders {
  static final String LOG = "orders";
  static final int KEYS = 5;

  private Orders() {}

  static CommitlaneDatabase open(ActorSystem<?> system, Path dir, Map<String, Object> overrides) throws Exception {
    Map<String, Object> m = new HashMap<>(Map.of("commit-threads", 2));
    m.putAll(overrides);
    CommitlaneDatabase db = Commitlane.get(system).open(dir, PipelineSettings.fromConfig(
        ConfigFactory.parseMap(m).atPath(PipelineSettings.ROOT).withFallback(system.settings().config())));
    await(db.createStore("model"));
    return db;
  }

  /** Commits orders {@code from..to} (inclusive), one logged transaction each, in order. */
  static void place(CommitlaneDatabase db, int from, int to) throws Exception {
    for (int i = from; i <= to; i++) {
      Transaction t = db.begin().useLog(LOG).addLogEntry(b("k" + (i % KEYS)));
      t.put(b("order/" + i), b("placed"));
      await(db.commit(t));
    }
  }

  /** Counts each record's key in store "model", in the projection's transaction; tags it with {@code tag} (for barriers). */
  static ProjectionHandler<LogRecord, Transaction> counting(CommitlaneDatabase db, Object tag) {
    Store model = db.storage().store("model");
    return (txn, records) -> {
      if (tag != null) {
        txn.tag(tag);
      }
      for (LogRecord r : records) {
        byte[] key = key(r);
        byte[] v = txn.get(model, key);
        txn.put(model, key, b(Long.toString(v == null ? 1 : Long.parseLong(s(v)) + 1)));
      }
    };
  }

  static byte[] key(LogRecord r) {
    byte[] key = new byte[r.entries().get(0).remaining()];
    r.entries().get(0).duplicate().get(key);
    return key;
  }

  /** The counts the projection wrote, by key. */
  static Map<String, Long> counts(CommitlaneDatabase db) {
    Store model = db.storage().store("model");
    Map<String, Long> out = new TreeMap<>();
    for (int k = 0; k < KEYS; k++) {
      byte[] v = db.storage().get(model, b("k" + k));
      if (v != null) {
        out.put("k" + k, Long.parseLong(s(v)));
      }
    }
    return out;
  }

  /** What the counts must be: the log's records, counted per key. */
  static Map<String, Long> expected(CommitlaneDatabase db, ActorSystem<?> system) throws Exception {
    Map<String, Long> out = new TreeMap<>();
    for (LogRecord r : records(db, system)) {
      out.merge(s(key(r)), 1L, Long::sum);
    }
    return out;
  }

  static List<LogRecord> records(CommitlaneDatabase db, ActorSystem<?> system) throws Exception {
    return await(ChangeFeed.current(db, LOG, ReadRequest.fromStart()).runWith(Sink.seq(), system));
  }

  static long lastPosition(CommitlaneDatabase db, ActorSystem<?> system) throws Exception {
    List<LogRecord> all = records(db, system);
    return all.get(all.size() - 1).position();
  }

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static String s(byte[] b) {
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }

  static <T> T await(CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
  }
}
