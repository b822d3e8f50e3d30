package io.commitlane.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.commitlane.annotation.InternalApi;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What is public is decided in the code and written in docs/api.md, and the two agree: every
 * public top-level type of a library module is listed there, under API or under INTERNAL API as
 * its marker says (a package named {@code internal}, or {@code @InternalApi}), and every type
 * listed exists. A new public type fails this test until someone decides which it is.
 */
class PublicApiTest {
  private static final Pattern ROW = Pattern.compile("^\\| `(io\\.commitlane\\.[\\w.]+)` \\|", Pattern.MULTILINE);
  private static final String INTERNAL_HEADING = "## INTERNAL API";

  /** Type name to whether it is internal, as the code says. */
  private static Map<String, Boolean> inCode() {
    JavaClasses main = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.commitlane");
    Map<String, Boolean> types = new TreeMap<>();
    for (JavaClass c : main) {
      if (c.getModifiers().contains(JavaModifier.PUBLIC) && c.isTopLevelClass()) {
        boolean internal = c.getPackageName().contains(".internal") || c.isAnnotatedWith(InternalApi.class);
        types.put(c.getName(), internal);
      }
    }
    return types;
  }

  /** Type name to whether it is listed as internal, as docs/api.md says. */
  private static Map<String, Boolean> inDocs() throws IOException {
    String md = Files.readString(Path.of("").toAbsolutePath().getParent().resolve("docs/api.md"));
    int internalFrom = md.indexOf(INTERNAL_HEADING);
    assertTrue(internalFrom > 0, "docs/api.md has no " + INTERNAL_HEADING + " section");
    Map<String, Boolean> types = new TreeMap<>();
    Matcher m = ROW.matcher(md);
    while (m.find()) {
      types.put(m.group(1), m.start() > internalFrom);
    }
    return types;
  }

  @Test
  void everyPublicTypeIsListedInTheApiPageAsTheCodeMarksIt() throws IOException {
    Map<String, Boolean> code = inCode();
    Map<String, Boolean> docs = inDocs();
    assertTrue(code.size() > 100, "the library modules are on the class path: " + code.size() + " public types");
    TreeSet<String> unlisted = new TreeSet<>(code.keySet());
    unlisted.removeAll(docs.keySet());
    assertEquals(new TreeSet<>(), unlisted, "public types missing from docs/api.md (list each as API or INTERNAL API)");
    TreeSet<String> gone = new TreeSet<>(docs.keySet());
    gone.removeAll(code.keySet());
    assertEquals(new TreeSet<>(), gone, "types docs/api.md lists that the code no longer has (or that are no longer public)");
    TreeSet<String> misplaced = new TreeSet<>();
    code.forEach((type, internal) -> {
      if (!internal.equals(docs.get(type))) {
        misplaced.add(type + (internal ? " is internal in the code" : " is API in the code"));
      }
    });
    assertEquals(new TreeSet<>(), misplaced, "types in the wrong part of docs/api.md");
  }
}
