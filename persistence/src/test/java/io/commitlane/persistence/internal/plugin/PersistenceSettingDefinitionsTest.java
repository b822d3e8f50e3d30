package io.commitlane.persistence.internal.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.internal.settings.Setting;
import io.commitlane.testsupport.ReferenceConfKeys;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * Every storage setting of a persistence plugin has one definition (PersistenceKeys): the shared
 * ones are the keys of {@code commitlane-persistence { }} in this module's reference.conf, each
 * with a comment stating its range, every plugin section sets its plugin-dispatcher, the
 * Configuration table of docs/persistence.md states each one's range, the plugin reads every
 * key it defines, and each definition names a field of PluginSettings.
 */
class PersistenceSettingDefinitionsTest {
  private static final List<String> PLUGINS = List.of("journal", "snapshot-store", "state", "query");

  private static String referenceConf() throws IOException {
    return Files.readString(Path.of("src/main/resources/reference.conf"));
  }

  @Test
  void referenceConfSetsEverySharedKeyAndNoOtherWithTheDefinedRange() throws IOException {
    List<String> sections = PLUGINS.stream().map(p -> p + ".").collect(Collectors.toList());
    sections.add("dispatcher.");
    Map<String, String> comments = ReferenceConfKeys.commented(referenceConf(), PluginSettings.SHARED, sections);
    assertEquals(keys(PersistenceKeys.SHARED), comments.keySet(), "reference.conf's keys of commitlane-persistence { } and the definitions differ");
    for (Setting s : PersistenceKeys.SHARED) {
      assertStates(comments.get(s.key()), s, '"', "reference.conf");
    }
  }

  @Test
  void everyPluginSectionSetsItsDispatcher() throws IOException {
    Map<String, String> all = ReferenceConfKeys.commented(referenceConf(), PluginSettings.SHARED, List.of());
    for (String plugin : PLUGINS) {
      assertTrue(all.containsKey(plugin + "." + PersistenceKeys.PLUGIN_DISPATCHER.key()), plugin + " sets no plugin-dispatcher");
    }
  }

  @Test
  void theConfigurationTableStatesEveryDefinitionsRange() throws IOException {
    String page = Files.readString(Path.of("../docs/persistence.md"));
    int from = page.indexOf("\n## Configuration\n");
    assertTrue(from > 0, "docs/persistence.md has no Configuration section");
    int table = page.indexOf("\n| key | default | what |", from);
    String rows = page.substring(table, page.indexOf("\n\n", table));
    Map<String, String> documented = new TreeMap<>();
    Matcher row = Pattern.compile("^\\| `(?:commitlane-persistence|<plugin>)\\.([a-z-]+)` \\|(.*)\\|$", Pattern.MULTILINE).matcher(rows);
    while (row.find()) {
      documented.put(row.group(1), row.group(2));
    }
    for (Setting s : PersistenceKeys.ALL) {
      assertTrue(documented.containsKey(s.key()), "docs/persistence.md's table has no row for " + s.key());
      assertStates(documented.get(s.key()), s, '`', "docs/persistence.md");
    }
  }

  private static void assertStates(String text, Setting s, char quote, String where) {
    if (s.kind() == Setting.Kind.ONE_OF) {
      for (String v : s.values()) {
        assertTrue(text.contains(quote + v + quote), where + ": the text of " + s.key() + " should name " + v + ": " + text);
      }
    } else {
      assertTrue(text.contains(s.range()), where + ": the text of " + s.key() + " should state " + s.range() + ": " + text);
    }
  }

  @Test
  void thePluginKnowsEveryDefinedKeyAndEachNamesAFieldOfPluginSettings() {
    assertTrue(PluginSettings.KEYS.containsAll(keys(PersistenceKeys.ALL)), PluginSettings.KEYS.toString());
    for (Setting s : PersistenceKeys.ALL) {
      assertTrue(Arrays.stream(PluginSettings.class.getRecordComponents()).anyMatch(c -> c.getName().equals(s.javaName())),
          s + " names no field of PluginSettings");
    }
  }

  private static TreeSet<String> keys(List<Setting> settings) {
    return settings.stream().map(Setting::key).collect(Collectors.toCollection(TreeSet::new));
  }
}
