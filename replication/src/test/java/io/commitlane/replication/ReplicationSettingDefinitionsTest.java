package io.commitlane.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.commitlane.replication.internal.config.ReplicationKeys;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.internal.settings.Setting;
import io.commitlane.testsupport.ReferenceConfKeys;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Every setting of {@code commitlane.replication { }} has one definition (ReplicationKeys): each
 * definition is a key of this module's reference.conf and of the settings table of
 * docs/replication.md, each of their keys is defined, the comment above a key (the table's row)
 * states the definition's range, and each definition names a field of ReplicaNodeSettings.
 */
class ReplicationSettingDefinitionsTest {
  private static final ReplicaPeer SELF = new ReplicaPeer("n1", "127.0.0.1", 7001);

  @Test
  void referenceConfHasEveryDefinedKeyAndNoOtherWithTheDefinedRange() throws IOException {
    assertAgrees(ReferenceConfKeys.commented(Files.readString(Path.of("src/main/resources/reference.conf")), List.of()),
        "replication's reference.conf");
  }

  @Test
  void theSettingsTableDocumentsEveryDefinedKeyAndNoOtherWithTheDefinedRange() throws IOException {
    String page = Files.readString(Path.of("../docs/replication.md"));
    int from = page.indexOf("\n## Settings\n");
    assertTrue(from > 0, "docs/replication.md has no Settings section");
    // The first table of the section: commitlane's own keys (the Ratis keys after it are Ratis's).
    int table = page.indexOf("\n| key | default | what |", from);
    assertTrue(table > 0, "docs/replication.md's Settings section has no table of keys");
    String section = page.substring(table, page.indexOf("\n\n", table));
    Map<String, String> rows = new TreeMap<>();
    Matcher row = Pattern.compile("^\\| (`[^|]+`) \\|(.*)\\|$", Pattern.MULTILINE).matcher(section);
    while (row.find()) {
      for (String key : row.group(1).split(",\\s*")) {
        rows.put(ReplicationKeys.SECTION + "." + key.replace("`", "").trim(), row.group(2));
      }
    }
    assertAgrees(rows, "docs/replication.md");
  }

  private static void assertAgrees(Map<String, String> documented, String where) {
    TreeSet<String> defined = ReplicationKeys.ALL.stream().map(Setting::key).collect(Collectors.toCollection(TreeSet::new));
    assertEquals(ReplicationKeys.ALL.size(), defined.size(), "a key is defined twice: " + ReplicationKeys.ALL);
    assertEquals(defined, documented.keySet(), where + ": its keys under commitlane.replication { } and the definitions differ");
    for (Setting s : ReplicationKeys.ALL) {
      String text = documented.get(s.key());
      assertTrue(text.contains(s.range()), where + ": the text of " + s.key() + " should state " + s.range() + ": " + text);
    }
  }

  @Test
  void everyDefinitionNamesAFieldOfReplicaNodeSettings() {
    for (Setting s : ReplicationKeys.ALL) {
      assertTrue(Arrays.stream(ReplicaNodeSettings.class.getRecordComponents()).anyMatch(c -> c.getName().equals(s.javaName())),
          s + " names no field of ReplicaNodeSettings");
    }
  }

  @Test
  void theRecordChecksItsFieldsThroughTheDefinitions() {
    ReplicaNodeSettings reference = ReplicaNodeSettings.of(SELF, Path.of("/tmp/replicas"));
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class,
        () -> reference.withLogRetention(Duration.ofDays(3651)).withLogSegmentBytes(1024));
    assertEquals(List.of(ReplicationKeys.path(ReplicationKeys.LOG_RETENTION)), e.fields());
    assertTrue(e.getMessage().contains(ReplicationKeys.LOG_RETENTION.allowed()), e.getMessage());
    InvalidSettingsException few = assertThrows(InvalidSettingsException.class, () -> reference.withSnapshotEveryEntries(99));
    assertTrue(few.getMessage().contains("commitlane.replication.snapshot-every-entries = 99: must be an integer of at least 100"),
        few.getMessage());
  }

  @Test
  void aMissingKeyIsNamed() {
    InvalidSettingsException e = assertThrows(InvalidSettingsException.class, () -> ReplicaNodeSettings.fromConfig(SELF,
        Path.of("/tmp/replicas"), ConfigFactory.parseString("commitlane.replication.log-retention = null")));
    assertEquals(List.of("commitlane.replication.log-retention"), e.fields());
  }
}
