package io.commitlane.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/testkit.md shows the example that OvertakeExampleTest runs. */
class TestkitDocsTest {
  @Test
  void theDocsShowTheCodeThatRunsHere() throws IOException {
    String source = Files.readString(Path.of("src/test/java/io/commitlane/testkit/OvertakeExampleTest.java"));
    String start = "// docs: example\n";
    int from = source.indexOf(start) + start.length();
    String example = source.substring(from, source.indexOf("// end docs: example\n", from));
    String markdown = Files.readString(Path.of("").toAbsolutePath().getParent().resolve("docs/testkit.md"));
    int at = markdown.indexOf("<!-- docs: example");
    assertTrue(at >= 0, "docs/testkit.md has no example marker");
    int open = markdown.indexOf("```java\n", at) + "```java\n".length();
    assertEquals(example, markdown.substring(open, markdown.indexOf("```\n", open)));
  }
}
