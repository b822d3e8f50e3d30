package io.commitlane.persistence.tck;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The TCK's actor-system config: commitlane's plugins on a fresh database in a temporary directory. */
final class TckConfig {
  private TckConfig() {}

  static Config config(String name) {
    Path dir;
    try {
      dir = Files.createTempDirectory("commitlane-tck-" + name);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ConfigFactory.parseString("""
        pekko.persistence.journal.plugin = "commitlane-persistence.journal"
        pekko.persistence.snapshot-store.plugin = "commitlane-persistence.snapshot-store"
        commitlane-persistence.path = "%s"
        # The first request starts the plugin, which opens its database: longer than the TCK's 3 s on a busy machine.
        pekko.test.single-expect-default = 10s
        """.formatted(dir.resolve("db").toString().replace("\\", "\\\\"))).withFallback(ConfigFactory.load());
  }
}
