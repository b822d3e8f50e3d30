package io.commitlane.actors;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.storage.CommitResult;
import io.commitlane.storage.Transaction;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;

/** Small helpers shared by the pipeline tests. */
final class PipelineTestSupport {
  private PipelineTestSupport() {}

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static String s(byte[] b) {
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }

  static PipelineSettings settings(ActorSystem<?> system, Map<String, Object> overrides) {
    Config c = ConfigFactory.parseMap(overrides).atPath(PipelineSettings.ROOT).withFallback(system.settings().config());
    return PipelineSettings.fromConfig(c);
  }

  static CompletionStage<CommitResult> put(CommitlaneDatabase db, String tag, String key, String value) {
    Transaction t = db.begin().tag(tag);
    t.put(b(key), b(value));
    return db.commit(t);
  }

  static <T> T await(CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
  }
}
