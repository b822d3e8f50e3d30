package io.commitlane.actors;

import static io.commitlane.testsupport.DocSnippets.fenced;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.commitlane.storage.InvalidSettingsException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/configuration.md shows the reference.conf files as they are, and the errors the settings give. */
class ConfigurationDocsTest {
  private static final Path ROOT = Path.of("..");

  @Test
  void thePageShowsBothReferenceConfsVerbatim() throws IOException {
    String page = Files.readString(ROOT.resolve("docs/configuration.md"));
    assertEquals(Files.readString(Path.of("src/main/resources/reference.conf")),
        fenced(page, "<!-- docs: reference.conf", "hocon"), "copy actors' reference.conf into docs/configuration.md");
    assertEquals(Files.readString(ROOT.resolve("cluster/src/main/resources/reference.conf")),
        fenced(page, "<!-- docs: cluster reference.conf", "hocon"), "copy cluster's reference.conf into docs/configuration.md");
  }

  @Test
  void theErrorsThePageQuotesAreTheOnesGiven() throws IOException {
    String page = Files.readString(ROOT.resolve("docs/configuration.md"));
    InvalidSettingsException badValue = assertThrows(InvalidSettingsException.class,
        () -> PipelineSettings.fromConfig(ConfigFactory.parseString("commitlane.commit-threads = 4.5")
            .withFallback(ConfigFactory.defaultReference())));
    String quoted = badValue.errors().get(0).toString();
    assertTrue(page.contains(quoted), "the page should quote: " + quoted);
    InvalidSettingsException misspelt = assertThrows(InvalidSettingsException.class,
        () -> PipelineSettings.fromConfig(ConfigFactory.parseString("commitlane.txlog.durabilty = fsync")
            .withFallback(ConfigFactory.defaultReference())));
    String unknown = misspelt.errors().get(0).toString();
    assertTrue(page.contains(unknown), "the page should quote: " + unknown);
  }
}
