package io.commitlane.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The repository's {@code ./commitlane} script builds exactly when the classes it would run are
 * older than their sources: not after a build you ran yourself ({@code mvn install}), always after
 * a source, resource or pom change that no build has seen, per module. Run on a copy of the script
 * in a small tree of two modules, with a {@code mvn} that records each build and writes what
 * Maven's {@code package} writes, and a {@code java} that only says it ran; every time is set, none
 * is read from the clock.
 */
class LauncherRebuildTest {
  @TempDir Path dir;

  private Path root;
  private Instant base;

  @BeforeEach
  void aTreeOfTwoModules() throws IOException {
    root = Files.createDirectories(dir.resolve("repo"));
    Files.copy(Path.of("..", "commitlane"), root.resolve("commitlane"));
    executable(root.resolve("commitlane"));
    base = Instant.now().minus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS);
    write("pom.xml", "<project/>");
    for (String m : List.of("storage", "benchmarks")) {
      write(m + "/pom.xml", "<project/>");
      write(m + "/src/main/java/" + m + "/Main.java", "class Main {}");
    }
    Path bin = Files.createDirectories(dir.resolve("bin"));
    // What `package` leaves: classes and a jar per module, the class path file naming this tree's jars and a dependency.
    Files.writeString(bin.resolve("mvn"), """
        #!/usr/bin/env bash
        echo build >> "$PWD/builds.log"
        mkdir -p storage/target/classes benchmarks/target/classes lib
        touch storage/target/commitlane-storage-1.0.jar benchmarks/target/commitlane-benchmarks-1.0.jar lib/dependency.jar
        printf '%s' "$PWD/storage/target/commitlane-storage-1.0.jar:$PWD/lib/dependency.jar" > benchmarks/target/classpath.txt
        """);
    Files.writeString(bin.resolve("java"), "#!/usr/bin/env bash\necho ran\n");
    executable(bin.resolve("mvn"));
    executable(bin.resolve("java"));
    for (String f : List.of("pom.xml", "storage/pom.xml", "benchmarks/pom.xml", "storage/src/main/java/storage/Main.java",
        "benchmarks/src/main/java/benchmarks/Main.java", "storage/src/main/java/storage", "benchmarks/src/main/java/benchmarks",
        "storage/src/main/java", "benchmarks/src/main/java", "storage/src/main", "benchmarks/src/main")) {
      at(f, 0);
    }
  }

  @Test
  void itBuildsWhenAndOnlyWhenTheClassesItRunsAreOlderThanTheirSources() throws Exception {
    assertBuilds("no class path file yet");
    built(10);
    assertRunsWithoutBuilding();

    // You edit a source and build it yourself (`mvn install`): the jars are newer than the edit.
    at("storage/src/main/java/storage/Main.java", 20);
    at("storage/target/commitlane-storage-1.0.jar", 30);
    at("benchmarks/target/commitlane-benchmarks-1.0.jar", 30);
    assertRunsWithoutBuilding();
    Files.delete(root.resolve("benchmarks/target/.built")); // a fresh clone you built: the script never built here
    assertRunsWithoutBuilding();

    // A change no build has seen, in one module, whatever the other module's jar says.
    at("storage/src/main/java/storage/Main.java", 40);
    at("benchmarks/target/commitlane-benchmarks-1.0.jar", 45);
    assertBuilds("storage/src/main/java/storage/Main.java changed since storage was built");
    built(50);
    Files.delete(root.resolve("storage/src/main/java/storage/Main.java")); // a deleted source changes its directory
    at("storage/src/main/java/storage", 60);
    assertBuilds("storage/src/main/java/storage changed since storage was built");
    built(70);
    at("benchmarks/src/main/java/benchmarks/Main.java", 80);
    at("storage/target/commitlane-storage-1.0.jar", 90); // `mvn -pl storage install`: benchmarks is still old
    assertBuilds("benchmarks/src/main/java/benchmarks/Main.java changed since benchmarks was built");
    built(100);

    // A pom change recompiles nothing, so no jar is rewritten: one build, then the stamp covers it.
    at("pom.xml", 110);
    assertBuilds("pom.xml changed since");
    built(100);
    at("benchmarks/target/.built", 120);
    assertRunsWithoutBuilding();

    // The class path file must name files that exist, and this tree's jars, not installed ones.
    Files.delete(root.resolve("lib/dependency.jar"));
    assertBuilds("which is gone");
    built(130);
    Path installed = Files.createDirectories(dir.resolve("m2/io/commitlane/commitlane-storage/1.0")).resolve("commitlane-storage-1.0.jar");
    Files.writeString(installed, "");
    Files.writeString(root.resolve("benchmarks/target/classpath.txt"), installed + ":" + root.resolve("lib/dependency.jar"));
    assertBuilds("an installed commitlane jar");
    built(140);
    Files.delete(root.resolve("benchmarks/target/commitlane-benchmarks-1.0.jar"));
    assertBuilds("benchmarks is not built");
    built(150);
    assertRunsWithoutBuilding();
    assertEquals(1, run(Map.of("COMMITLANE_REBUILD", "1")).builds(), "COMMITLANE_REBUILD=1 builds anyway");
  }

  private record Run(int builds, String err) {}

  private void assertBuilds(String why) throws Exception {
    Run r = run(Map.of());
    assertEquals(1, r.builds(), r.err());
    assertTrue(r.err().contains("commitlane: building (") && r.err().contains(why), r.err());
  }

  private void assertRunsWithoutBuilding() throws Exception {
    Run r = run(Map.of());
    assertEquals(0, r.builds(), r.err());
  }

  /** Runs the script once: how many builds it ran and what it printed on stderr; it must end by running java. */
  private Run run(Map<String, String> env) throws Exception {
    Path log = root.resolve("builds.log");
    Files.deleteIfExists(log);
    ProcessBuilder pb = new ProcessBuilder(root.resolve("commitlane").toString(), "--help").directory(root.toFile());
    pb.environment().put("PATH", dir.resolve("bin") + ":" + System.getenv("PATH"));
    pb.environment().remove("COMMITLANE_REBUILD");
    pb.environment().putAll(env);
    pb.redirectOutput(dir.resolve("out.txt").toFile()).redirectError(dir.resolve("err.txt").toFile());
    Process p = pb.start();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the script finishes");
    String err = Files.readString(dir.resolve("err.txt"));
    assertEquals(0, p.exitValue(), err);
    assertEquals("ran\n", Files.readString(dir.resolve("out.txt")), err);
    return new Run(Files.exists(log) ? Files.readAllLines(log).size() : 0, err);
  }

  /** After a build: every output at {@code minutes}, as if that build had run then. */
  private void built(int minutes) throws IOException {
    for (String f : List.of("storage/target/commitlane-storage-1.0.jar", "benchmarks/target/commitlane-benchmarks-1.0.jar",
        "benchmarks/target/classpath.txt", "benchmarks/target/.built", "lib/dependency.jar")) {
      at(f, minutes);
    }
  }

  private void at(String file, int minutes) throws IOException {
    Files.setLastModifiedTime(root.resolve(file), FileTime.from(base.plus(minutes, ChronoUnit.MINUTES)));
  }

  private void write(String file, String text) throws IOException {
    Path p = root.resolve(file);
    Files.createDirectories(p.getParent());
    Files.writeString(p, text, StandardCharsets.UTF_8);
  }

  private static void executable(Path file) throws IOException {
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }
}
