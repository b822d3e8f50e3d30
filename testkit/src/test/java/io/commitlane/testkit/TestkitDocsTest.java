package io.commitlane.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/testkit.md shows the examples that OvertakeExampleTest and PhantomExampleTest run. */
class TestkitDocsTest {
  @Test
  void theDocsShowTheCodeThatRunsHere() throws IOException {
    assertShown("OvertakeExampleTest", "example");
    assertShown("PhantomExampleTest", "phantom-example");
    assertShown("WriteStallExampleTest", "write-stall");
  }

  private static void assertShown(String test, String name) throws IOException {
    String source = Files.readString(Path.of("src/test/java/io/commitlane/testkit/" + test + ".java"));
    String start = "// docs: " + name + "\n";
    int from = source.indexOf(start) + start.length();
    String example = source.substring(from, source.indexOf("// end docs: " + name + "\n", from));
    String markdown = Files.readString(Path.of("").toAbsolutePath().getParent().resolve("docs/testkit.md"));
    int at = markdown.indexOf("<!-- docs: " + name + " ");
    assertTrue(at >= 0, "docs/testkit.md has no " + name + " marker");
    int open = markdown.indexOf("```java\n", at) + "```java\n".length();
    assertEquals(example, markdown.substring(open, markdown.indexOf("```\n", open)));
  }
}
