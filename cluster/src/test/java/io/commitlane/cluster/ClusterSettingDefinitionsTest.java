package io.commitlane.cluster;

import static io.commitlane.testsupport.DocSnippets.fenced;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.commitlane.cluster.internal.config.ClusterKeys;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.internal.settings.Setting;
import io.commitlane.testsupport.ReferenceConfKeys;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Every setting of {@code commitlane.cluster { }} has one definition (ClusterKeys): each definition
 * is a key of this module's reference.conf and of its copy in docs/configuration.md, each of their
 * keys is defined, the comment above a key states the definition's range, and each definition
 * names a field of ClusterSettings.
 */
class ClusterSettingDefinitionsTest {
  /** A section of commitlane.cluster that is Pekko dispatcher configuration, not a setting. */
  private static final List<String> OTHER_SECTIONS = List.of("cluster.blocking-dispatcher.");

  @Test
  void referenceConfHasEveryDefinedKeyAndNoOtherWithTheDefinedRange() throws IOException {
    assertAgrees(Files.readString(Path.of("src/main/resources/reference.conf")), "cluster's reference.conf");
  }

  @Test
  void configurationPageDocumentsEveryDefinedKeyAndNoOtherWithTheDefinedRange() throws IOException {
    String page = Files.readString(Path.of("../docs/configuration.md"));
    assertAgrees(fenced(page, "<!-- docs: cluster reference.conf", "hocon"), "docs/configuration.md");
  }

  private static void assertAgrees(String hocon, String where) {
    Map<String, String> comments = ReferenceConfKeys.commented(hocon, OTHER_SECTIONS);
    TreeSet<String> defined = ClusterKeys.ALL.stream().map(Setting::key).collect(Collectors.toCollection(TreeSet::new));
    assertEquals(ClusterKeys.ALL.size(), defined.size(), "a key is defined twice: " + ClusterKeys.ALL);
    assertEquals(defined, comments.keySet(), where + ": its keys under commitlane.cluster { } and the definitions differ");
    for (Setting s : ClusterKeys.ALL) {
      String comment = comments.get(s.key());
      assertTrue(comment.contains(s.range()), where + ": the comment of " + s.key() + " should state " + s.range() + ": " + comment);
      if (s.isOff(Setting.OFF)) {
        assertTrue(comment.contains("or off"), where + ": the comment of " + s.key() + " should say it may be off: " + comment);
      }
    }
  }

  @Test
  void everyDefinitionNamesAFieldOfClusterSettings() {
    for (Setting s : ClusterKeys.ALL) {
      assertTrue(Arrays.stream(ClusterSettings.class.getRecordComponents()).anyMatch(c -> c.getName().equals(s.javaName())),
          s + " names no field of ClusterSettings");
    }
  }

  @Test
  void theReferenceConfIsValidAndAMissingKeyIsAnErrorNotAFallback() {
    ClusterSettings reference = ClusterSettings.fromConfig(ConfigFactory.defaultReference());
    assertNull(reference.dataDir(), "an empty data-dir is a node that hosts no databases");
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class, () -> ClusterSettings.fromConfig(
        ConfigFactory.defaultReference().withoutPath("commitlane.cluster.ask-timeout")));
    assertEquals(List.of("commitlane.cluster.ask-timeout"), e.fields());
  }

  @Test
  void theRecordChecksItsFieldsThroughTheDefinitions() {
    ClusterSettings reference = ClusterSettings.fromConfig(ConfigFactory.defaultReference());
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class,
        () -> reference.withAskTimeout(java.time.Duration.ofMinutes(11)));
    assertEquals(List.of(ClusterKeys.path(ClusterKeys.ASK_TIMEOUT)), e.fields());
    assertTrue(e.getMessage().contains(ClusterKeys.ASK_TIMEOUT.allowed()), e.getMessage());
  }
}
