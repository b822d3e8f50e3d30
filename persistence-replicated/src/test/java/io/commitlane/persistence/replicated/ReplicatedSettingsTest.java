package io.commitlane.persistence.replicated;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.persistence.internal.plugin.PluginSettings;
import io.commitlane.persistence.internal.plugin.PluginStores;
import io.commitlane.persistence.replicated.internal.ReplicatedPluginStoreFactory;
import io.commitlane.storage.InvalidSettingsException;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.Test;

/** The replicated section refused whole and typed: no group, a node without a replica, unknown keys. */
class ReplicatedSettingsTest {
  private static Config withReplicated(String section) {
    return ConfigFactory.parseString("commitlane-persistence.replicated { " + section + " }")
        .withFallback(ConfigFactory.load()).resolve();
  }

  private static Set<String> fields(InvalidSettingsException e) {
    return e.errors().stream().map(InvalidSettingsException.SettingError::field).collect(Collectors.toSet());
  }

  @Test
  void aSectionWithoutAGroupNamesEveryMissingKey() {
    PluginSettings s = PluginSettings.read(withReplicated("node = n1"), "commitlane-persistence.journal");
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class,
        () -> ReplicatedPluginStoreFactory.read(s.replicated(), "commitlane-persistence.journal.replicated"));
    assertTrue(fields(e).containsAll(Set.of("commitlane-persistence.journal.replicated.database",
        "commitlane-persistence.journal.replicated.voters")), fields(e).toString());
  }

  @Test
  void aNodeWithoutAReplicaIsRefusedSayingWhy() {
    PluginSettings s = PluginSettings.read(withReplicated(
        "database = events, voters = [\"n1=127.0.0.1:7001\", \"n2=127.0.0.1:7002\", \"n3=127.0.0.1:7003\"], node = client"),
        "commitlane-persistence.journal");
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class,
        () -> ReplicatedPluginStoreFactory.read(s.replicated(), "commitlane-persistence.journal.replicated"));
    assertEquals(List.of("commitlane-persistence.journal.replicated.node"), e.errors().stream()
        .map(InvalidSettingsException.SettingError::field).toList());
    assertTrue(e.getMessage().contains("not supported"), e.getMessage());
  }

  @Test
  void aPluginWithABadSectionFailsItsStartTyped() {
    Config config = withReplicated("database = events, voters = [], node = n9, colour = blue");
    ActorTestKit kit = ActorTestKit.create("bad-settings", config);
    try {
      PluginSettings s = PluginSettings.read(kit.system().settings().config(), "commitlane-persistence.journal");
      Throwable failed = ReplicatedNodes.failure(PluginStores.get(kit.system()).acquire(s));
      InvalidSettingsException e = assertInstanceOf(InvalidSettingsException.class, failed);
      assertTrue(fields(e).contains("commitlane-persistence.journal.replicated.colour"), fields(e).toString());
    } finally {
      kit.shutdownTestKit();
    }
  }

  @Test
  void anEmptySectionIsTheLocalDatabase() {
    PluginSettings s = PluginSettings.read(ConfigFactory.parseString(
        "commitlane-persistence { path = \"/tmp/x\", replicated {} }").withFallback(ConfigFactory.load()).resolve(),
        "commitlane-persistence.journal");
    assertEquals(null, s.replicated());
  }
}
