package io.commitlane.actors;

import static io.commitlane.testsupport.DocSnippets.fenced;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.internal.config.PipelineKeys;
import io.commitlane.actors.internal.config.ProjectionKeys;
import io.commitlane.actors.internal.config.StreamKeys;
import io.commitlane.actors.projection.ProjectionSettings;
import io.commitlane.actors.stream.CommitFlowSettings;
import io.commitlane.actors.stream.IngestSettings;
import io.commitlane.storage.CommitlaneSettings;
import io.commitlane.storage.RocksDbTuning;
import io.commitlane.storage.RocksDbWal;
import io.commitlane.storage.internal.settings.Setting;
import io.commitlane.storage.internal.settings.StorageKeys;
import io.commitlane.testsupport.ReferenceConfKeys;
import io.commitlane.txlog.LogSettings;
import io.commitlane.txlog.internal.settings.LogKey;
import io.commitlane.txlog.internal.settings.LogKeys;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Every setting of {@code commitlane { }} has one definition (StorageKeys, LogKeys, PipelineKeys,
 * StreamKeys, ProjectionKeys):
 * each definition is a key of reference.conf and of docs/configuration.md, each of their keys is
 * defined, the comment above a key states the definition's range, and the Java defaults of
 * storage and txlog used without Pekko are reference.conf's.
 */
class SettingDefinitionsTest {
  /** Sections of reference.conf that are not settings of a database, and are read by other classes. */
  private static final List<String> OTHER_SECTIONS = List.of("commit-dispatcher.", "log-dispatcher.", "lifecycle-dispatcher.",
      "rocksdb.store-compression");

  private record Definition(String key, String javaName, String range, List<String> choices) {}

  private static Map<String, Definition> definitions() {
    Map<String, Definition> all = new TreeMap<>();
    List<Setting> settings = new ArrayList<>(StorageKeys.ALL);
    settings.addAll(PipelineKeys.ALL);
    settings.addAll(StreamKeys.ALL);
    settings.addAll(ProjectionKeys.ALL);
    for (Setting s : settings) {
      assertEquals(null, all.put(s.key(), new Definition(s.key(), s.javaName(), s.range(),
          s.kind() == Setting.Kind.ONE_OF ? s.values() : List.of())), "defined twice: " + s.key());
    }
    for (LogKey k : LogKeys.ALL) {
      if (k.key() != null) {
        assertEquals(null, all.put(k.key(), new Definition(k.key(), k.javaName(), k.range(), k.values())), "defined twice: " + k.key());
      }
    }
    return all;
  }

  @Test
  void referenceConfHasEveryDefinedKeyAndNoOtherWithTheDefinedRange() throws IOException {
    assertAgrees(Files.readString(Path.of("src/main/resources/reference.conf")), "reference.conf");
  }

  @Test
  void configurationPageDocumentsEveryDefinedKeyAndNoOtherWithTheDefinedRange() throws IOException {
    String page = Files.readString(Path.of("../docs/configuration.md"));
    assertAgrees(fenced(page, "<!-- docs: reference.conf", "hocon"), "docs/configuration.md");
  }

  private static void assertAgrees(String hocon, String where) {
    Map<String, String> comments = ReferenceConfKeys.commented(hocon, OTHER_SECTIONS);
    Map<String, Definition> defined = definitions();
    assertEquals(defined.keySet(), comments.keySet(), where + ": its keys under commitlane { } and the definitions differ");
    for (Definition d : defined.values()) {
      String comment = comments.get(d.key());
      if (d.choices().isEmpty()) {
        assertTrue(comment.contains(d.range()), where + ": the comment of " + d.key() + " should state " + d.range() + ": " + comment);
      } else {
        for (String choice : d.choices()) {
          assertTrue(comment.contains('"' + choice + '"'), where + ": the comment of " + d.key() + " should name \"" + choice + "\"");
        }
      }
    }
  }

  @Test
  void everyDefinitionNamesAFieldOfItsSettingsClass() {
    for (Setting s : StorageKeys.ALL) {
      String[] parts = s.javaName().split("\\.");
      Class<?> owner = parts.length == 1 ? CommitlaneSettings.class
          : parts[0].equals("rocksDbWal") ? RocksDbWal.class : RocksDbTuning.class;
      assertTrue(hasComponent(owner, parts[parts.length - 1]), s + " names no field of " + owner.getSimpleName());
    }
    for (Setting s : PipelineKeys.ALL) {
      String[] parts = s.javaName().split("\\.");
      Class<?> owner = parts.length == 1 ? PipelineSettings.class
          : parts[0].equals("writeGroups") ? WriteGroupSettings.class : RequestIdSettings.class;
      assertTrue(hasComponent(owner, parts[parts.length - 1]), s + " names no field of " + owner.getSimpleName());
    }
    for (Setting s : StreamKeys.ALL) {
      Class<?> owner = s.key().startsWith(StreamKeys.INGEST + ".") ? IngestSettings.class : CommitFlowSettings.class;
      assertTrue(hasPath(owner, s.javaName()), s + " names no field of " + owner.getSimpleName());
    }
    for (Setting s : ProjectionKeys.ALL) {
      assertTrue(hasPath(ProjectionSettings.class, s.javaName()), s + " names no field of ProjectionSettings");
    }
    for (LogKey k : LogKeys.ALL) {
      assertTrue(hasComponent(LogSettings.class, k.javaName()), k + " names no field of LogSettings");
      String wither = "with" + Character.toUpperCase(k.javaName().charAt(0)) + k.javaName().substring(1);
      assertTrue(Arrays.stream(LogSettings.class.getMethods()).anyMatch(m -> m.getName().equals(wither)),
          wither + " is no method of LogSettings");
    }
  }

  /** Whether {@code path} ({@code conflictRetry.backoff.min}) names components of records, starting at {@code record}. */
  private static boolean hasPath(Class<?> record, String path) {
    Class<?> type = record;
    for (String name : path.split("\\.")) {
      if (type == null || !type.isRecord()) {
        return false;
      }
      type = Arrays.stream(type.getRecordComponents()).filter(c -> c.getName().equals(name))
          .<Class<?>>map(java.lang.reflect.RecordComponent::getType).findFirst().orElse(null);
      if (type == null) {
        return false;
      }
    }
    return true;
  }

  private static boolean hasComponent(Class<?> record, String name) {
    return Arrays.stream(record.getRecordComponents()).anyMatch(c -> c.getName().equals(name));
  }

  @Test
  void theJavaDefaultsOfStorageAndTxlogAreReferenceConfs() {
    PipelineSettings reference = PipelineSettings.defaults();
    assertEquals(CommitlaneSettings.defaults(), reference.storage(), "CommitlaneSettings.defaults() and reference.conf differ");
    assertEquals(LogSettings.defaults(), reference.log(), "LogSettings.defaults() and reference.conf differ");
  }

  @Test
  void aMissingKeyIsAnErrorNotAFallback() {
    var e = org.junit.jupiter.api.Assertions.assertThrows(io.commitlane.storage.InvalidSettingsException.class,
        () -> PipelineSettings.fromConfig(com.typesafe.config.ConfigFactory.defaultReference()
            .withoutPath("commitlane.executor-batch")));
    assertEquals(List.of("commitlane.executor-batch"), e.fields());
    assertTrue(e.getMessage().contains(PipelineKeys.EXECUTOR_BATCH.allowed()), e.getMessage());
    assertFalse(Set.copyOf(definitions().keySet()).isEmpty());
    assertNotNull(PipelineSettings.defaults());
  }
}
