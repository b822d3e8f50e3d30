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
 * What is public is decided in the code and written in docs/api.md, and the two agree. A type in a
 * package named {@code internal} is internal by its package: docs/api.md may list it (under
 * INTERNAL API, nowhere else) and need not. Every other public top-level type of a library module
 * is listed there, under API or, when it is marked {@code @InternalApi}, under INTERNAL API; every
 * type listed exists. A new public type outside {@code internal} fails this test until someone
 * decides which it is. Machinery marked {@code @InternalApi} outside {@code internal} packages only
 * shrinks: its count may not grow past {@link #MOST_INTERNAL_TYPES_OUTSIDE_INTERNAL_PACKAGES}.
 */
class PublicApiTest {
  private static final Pattern ROW = Pattern.compile("^\\| `(io\\.commitlane\\.[\\w.]+)` \\|", Pattern.MULTILINE);
  private static final String INTERNAL_HEADING = "## INTERNAL API";
  /**
   * The {@code @InternalApi} top-level types outside {@code internal} packages: storage's
   * InternalRecords, StoreClaims and LogCapture, which need package-private members of
   * Database and Transaction. Lower it as they move under {@code internal}, never raise it.
   */
  static final int MOST_INTERNAL_TYPES_OUTSIDE_INTERNAL_PACKAGES = 3;

  /** Type name to whether it is internal, as the code says. */
  private static Map<String, Boolean> inCode() {
    JavaClasses main = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.commitlane");
    Map<String, Boolean> types = new TreeMap<>();
    for (JavaClass c : main) {
      if (c.getModifiers().contains(JavaModifier.PUBLIC) && c.isTopLevelClass()) {
        boolean internal = inInternalPackage(c) || c.isAnnotatedWith(InternalApi.class);
        types.put(c.getName(), internal);
      }
    }
    return types;
  }

  static boolean inInternalPackage(JavaClass c) {
    return (c.getPackageName() + ".").contains(".internal.");
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
    unlisted.removeIf(type -> (packageOf(type) + ".").contains(".internal."));
    assertEquals(new TreeSet<>(), unlisted, "public types missing from docs/api.md (list each as API or INTERNAL API)");
    TreeSet<String> gone = new TreeSet<>(docs.keySet());
    gone.removeAll(code.keySet());
    assertEquals(new TreeSet<>(), gone, "types docs/api.md lists that the code no longer has (or that are no longer public)");
    TreeSet<String> misplaced = new TreeSet<>();
    code.forEach((type, internal) -> {
      if (docs.containsKey(type) && !internal.equals(docs.get(type))) {
        misplaced.add(type + (internal ? " is internal in the code" : " is API in the code"));
      }
    });
    assertEquals(new TreeSet<>(), misplaced, "types in the wrong part of docs/api.md");
  }

  private static String packageOf(String type) {
    return type.substring(0, type.lastIndexOf('.'));
  }

  /** The public types marked @InternalApi outside internal packages: machinery that has not moved under internal yet. */
  static TreeSet<String> internalTypesOutsideInternalPackages(JavaClasses classes) {
    TreeSet<String> types = new TreeSet<>();
    for (JavaClass c : classes) {
      if (c.getModifiers().contains(JavaModifier.PUBLIC) && c.isTopLevelClass() && !inInternalPackage(c)
          && c.isAnnotatedWith(InternalApi.class)) {
        types.add(c.getName());
      }
    }
    return types;
  }

  @Test
  void internalMachineryOutsideInternalPackagesDoesNotGrow() {
    JavaClasses main = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.commitlane");
    TreeSet<String> outside = internalTypesOutsideInternalPackages(main);
    System.out.println(outside.size() + " @InternalApi types outside internal packages: " + outside);
    assertTrue(outside.size() <= MOST_INTERNAL_TYPES_OUTSIDE_INTERNAL_PACKAGES, outside.size()
        + " @InternalApi types outside internal packages, more than " + MOST_INTERNAL_TYPES_OUTSIDE_INTERNAL_PACKAGES
        + ": put new machinery under its module's internal package instead: " + outside);
  }

  /** The count rule can fail: a fixture type marked @InternalApi outside an internal package is counted, one inside is not. */
  @Test
  void theCountSeesInternalTypesOutsideInternalPackagesOnly() {
    JavaClasses fixtures = new ClassFileImporter().importClasses(
        io.commitlane.storage.layeringfixture.StorageSeam.class, io.commitlane.replication.internal.layeringfixture.ReplicationUsingPekko.class);
    assertEquals(new TreeSet<>(java.util.List.of(io.commitlane.storage.layeringfixture.StorageSeam.class.getName())),
        internalTypesOutsideInternalPackages(fixtures));
  }
}
