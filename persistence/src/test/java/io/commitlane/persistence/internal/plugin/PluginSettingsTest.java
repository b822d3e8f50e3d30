package io.commitlane.persistence.internal.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.txlog.Durability;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A plugin's settings: shared defaults, a plugin's own overrides, and every bad key named in one error. */
public class PluginSettingsTest {
  private static Config config(String s) {
    return ConfigFactory.parseString(s).withFallback(ConfigFactory.load()).resolve();
  }

  @Test
  void aPluginTakesTheSharedKeysItDoesNotSetItself() {
    Config c = config("""
        commitlane-persistence { path = "/data/shared", durability = fsync }
        commitlane-persistence.state { path = "/data/state", log = "state-log", wal = on }
        """);
    PluginSettings journal = PluginSettings.read(c, "commitlane-persistence.journal");
    assertEquals(Path.of("/data/shared"), journal.path());
    assertEquals("pekko-persistence", journal.log());
    assertEquals(Durability.FSYNC, journal.durability());
    PluginSettings state = PluginSettings.read(c, "commitlane-persistence.state");
    assertEquals(Path.of("/data/state"), state.path());
    assertEquals("state-log", state.log());
    assertTrue(state.wal());
    assertEquals("on", state.databaseConfig(c).getString("commitlane.wal"));
    assertEquals("fsync", state.databaseConfig(c).getString("commitlane.txlog.durability"));
  }

  @Test
  void noLogNeedsTheWal() {
    Config c = config("commitlane-persistence { path = \"/d\", log = \"\", wal = on }");
    assertNull(PluginSettings.read(c, "commitlane-persistence.journal").log());
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class, () -> PluginSettings.read(
        config("commitlane-persistence { path = \"/d\", log = \"\" }"), "commitlane-persistence.journal"));
    assertTrue(e.getMessage().contains("nothing keeps acknowledged events across a crash"), e.getMessage());
  }

  @Test
  void everyBadKeyIsNamedTogether() {
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class, () -> PluginSettings.read(config("""
        commitlane-persistence.journal { log = ".hidden", durability = always, page-size = many, pathh = "/x" }
        """), "commitlane-persistence.journal"));
    assertEquals(List.of("commitlane-persistence.journal.durability", "commitlane-persistence.journal.log",
        "commitlane-persistence.journal.page-size", "commitlane-persistence.journal.path",
        "commitlane-persistence.journal.pathh"), e.fields().stream().sorted().toList(), e.getMessage());
  }

  @Test
  void pekkosOwnPluginKeysAreAccepted() {
    Config c = config("""
        commitlane-persistence.path = "/d"
        commitlane-persistence.journal { recovery-event-timeout = 60s, circuit-breaker.call-timeout = 20s,
          event-adapters { a = "x.Y" } }
        """);
    assertEquals(Path.of("/d"), PluginSettings.read(c, "commitlane-persistence.journal").path());
  }
}
