package io.commitlane.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.storage.InvalidSettingsException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.Test;

class ClusterSettingsTest {
  private static Config with(String conf) {
    return ConfigFactory.parseString(conf).withFallback(ConfigFactory.defaultReference()).resolve();
  }

  @Test
  void defaultsNeedOnlyADataDirectory() {
    ClusterSettings s = ClusterSettings.fromConfig(with("commitlane.cluster.data-dir = /var/lib/commitlane"));
    assertEquals(Path.of("/var/lib/commitlane"), s.dataDir());
    assertEquals(Duration.ofSeconds(10), s.askTimeout());
    assertEquals(Duration.ofMillis(200), s.openRetryInterval());
    assertEquals(Duration.ofSeconds(30), s.openTimeout());
    assertEquals(10_000, s.openBuffer());
    assertEquals(Optional.of(Duration.ofMinutes(10)), s.passivateIdleAfter());
    assertEquals(3, s.conflictRetries());
    assertTrue(s.requireSplitBrainResolver());
    assertEquals(Path.of("/var/lib/commitlane/orders"), s.databaseDir("orders"));
  }

  @Test
  void passivationCanBeTurnedOff() {
    assertEquals(Optional.empty(),
        ClusterSettings.fromConfig(with("commitlane.cluster { data-dir = /d, passivate-idle-after = off }")).passivateIdleAfter());
  }

  @Test
  void everyBadFieldIsReportedTogether() {
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class, () -> ClusterSettings.fromConfig(with(
        "commitlane.cluster { ask-timeout = 0 ms, open-retry-interval = soon, open-timeout = 1 hour, open-buffer = 0,"
            + " passivate-idle-after = 10 ms, conflict-retries = 101, entity-dispatcher = \"\", require-split-brain-resolver = maybe }")));
    // Parse errors first, then range errors, each field once.
    assertEquals(List.of("commitlane.cluster.open-retry-interval", "commitlane.cluster.open-buffer",
        "commitlane.cluster.conflict-retries", "commitlane.cluster.require-split-brain-resolver", "commitlane.cluster.ask-timeout",
        "commitlane.cluster.open-timeout", "commitlane.cluster.passivate-idle-after", "commitlane.cluster.entity-dispatcher"),
        e.fields());
    assertTrue(e.getMessage().contains("commitlane.cluster.open-buffer = 0: must be an integer in 1..1000000"), e.getMessage());
    assertTrue(e.getMessage().contains("commitlane.cluster.open-timeout = PT1H: must be a duration in 0..10 minutes"), e.getMessage());
  }

  @Test
  void aClientOnlyNodeNeedsNoDataDirectory() {
    ClusterSettings s = ClusterSettings.fromConfig(with("commitlane.cluster.role = databases"));
    assertEquals(null, s.dataDir());
    assertEquals(Optional.of("databases"), s.role());
    assertEquals(Optional.empty(), ClusterSettings.fromConfig(with("commitlane.cluster.data-dir = /d")).role());
  }

  @Test
  void initNamesEverySetupProblemTogether() {
    ActorTestKit kit = ActorTestKit.create("commitlane", with("""
        pekko.cluster.downing-provider-class = "org.apache.pekko.cluster.sbr.SplitBrainResolverProvider"
        pekko.cluster.seed-nodes = ["pekko://commitlane@127.0.0.1:2551", "pekko://shop@127.0.0.1:2552"]
        """));
    try {
      InvalidSettingsException e = assertThrows(InvalidSettingsException.class, () -> DatabaseSharding.init(kit.system()));
      assertEquals(List.of("pekko.cluster.seed-nodes", "commitlane.cluster.data-dir"), e.fields());
      assertTrue(e.getMessage().contains("names actor system \"shop\" but this node's actor system is \"commitlane\""), e.getMessage());
      assertTrue(e.getMessage().contains("must be set on a node that hosts databases"), e.getMessage());
    } finally {
      kit.shutdownTestKit();
    }
  }

  @Test
  void initRefusesAClusterWithoutTheSplitBrainResolver() {
    // A local actor system is enough: the check runs before sharding starts.
    ActorTestKit kit = ActorTestKit.create("no-sbr", with("commitlane.cluster.data-dir = /tmp/unused"));
    try {
      InvalidSettingsException e = assertThrows(InvalidSettingsException.class, () -> DatabaseSharding.init(kit.system()));
      assertEquals(List.of("pekko.cluster.downing-provider-class"), e.fields());
      assertTrue(e.getMessage().contains(DatabaseSharding.SPLIT_BRAIN_RESOLVER), e.getMessage());
    } finally {
      kit.shutdownTestKit();
    }
  }
}
