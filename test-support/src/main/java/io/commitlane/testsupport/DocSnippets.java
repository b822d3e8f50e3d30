package io.commitlane.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The docs show code that runs: a test marks its example with {@code // docs: NAME} and {@code
 * // end docs: NAME} (or a bare {@code // end docs}), a page marks the code fence that shows it
 * with {@code <!-- docs: NAME ... -->}, and the two are compared here. Snippets are compared
 * de-indented, without trailing blank lines.
 */
public final class DocSnippets {
  private DocSnippets() {}

  /** The repository's root, seen from a module's directory (where Maven runs its tests). */
  public static Path root() {
    return Path.of("").toAbsolutePath().getParent();
  }

  public static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  /** The lines between {@code // docs: NAME} and {@code // end docs: NAME} of {@code source}. */
  public static String inSource(String source, String name) {
    return between(source, "// docs: " + name + "\n", "// end docs: " + name + "\n");
  }

  /** The lines between the markers {@code start} and {@code end} (each a whole line) of {@code text}. */
  public static String between(String text, String start, String end) {
    int at = text.indexOf(start);
    if (at < 0) {
      throw new AssertionError("no \"" + start.strip() + "\" marker");
    }
    int from = at + start.length();
    int to = text.indexOf(end, from);
    if (to < 0) {
      throw new AssertionError("no \"" + end.strip() + "\" marker after \"" + start.strip() + "\"");
    }
    return deindent(text.substring(from, to).lines().toList());
  }

  /** Every snippet of {@code source}, in order: from each {@code // docs: ...} line to the next {@code // end docs} line. */
  public static List<String> allInSource(String source) {
    List<String> out = new ArrayList<>();
    List<String> current = null;
    for (String line : source.lines().toList()) {
      String t = line.trim();
      if (t.startsWith("// docs: ")) {
        current = new ArrayList<>();
      } else if (t.startsWith("// end docs") && current != null) {
        out.add(deindent(current));
        current = null;
      } else if (current != null) {
        current.add(line);
      }
    }
    return out;
  }

  /** The body of the first java code fence after {@code marker} in {@code markdown}. */
  public static String fenced(String markdown, String marker) {
    return fenced(markdown, marker, "java");
  }

  /** The body of the first {@code ```lang} fence after {@code marker} in {@code markdown}. */
  public static String fenced(String markdown, String marker, String lang) {
    int at = markdown.indexOf(marker);
    if (at < 0) {
      throw new AssertionError("the page has no \"" + marker + "\" marker");
    }
    String open = "```" + lang + "\n";
    int from = markdown.indexOf(open, at);
    if (from < 0) {
      throw new AssertionError("no ```" + lang + " fence after \"" + marker + "\"");
    }
    from += open.length();
    return markdown.substring(from, markdown.indexOf("```\n", from));
  }

  /** Fails unless the java fence after {@code <!-- docs: NAME} on {@code page} is the snippet NAME of {@code source}. */
  public static void assertShown(Path source, Path page, String name) {
    String expected = inSource(read(source), name);
    String shown = fenced(read(page), "<!-- docs: " + name, "java");
    if (!expected.equals(shown)) {
      throw new AssertionError(page.getFileName() + " does not show the snippet \"" + name + "\" of " + source.getFileName()
          + " as it runs.\n--- in the source:\n" + expected + "--- on the page:\n" + shown);
    }
  }

  private static String deindent(List<String> block) {
    List<String> lines = new ArrayList<>(block);
    while (!lines.isEmpty() && lines.get(lines.size() - 1).isBlank()) {
      lines.remove(lines.size() - 1);
    }
    int indent = lines.stream().filter(l -> !l.isBlank()).mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
    StringBuilder out = new StringBuilder();
    for (String l : lines) {
      out.append(l.isBlank() ? "" : l.substring(indent)).append('\n');
    }
    return out.toString();
  }
}
