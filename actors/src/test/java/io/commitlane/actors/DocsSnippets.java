package io.commitlane.actors;

import java.util.ArrayList;
import java.util.List;

/**
 * The snippets a docs-examples test shows on a page: the code between each {@code // docs: name}
 * line of the test's source and the next {@code // end docs}, de-indented, in source order.
 */
final class DocsSnippets {
  private DocsSnippets() {}

  static List<String> of(List<String> lines) {
    List<String> out = new ArrayList<>();
    List<String> current = null;
    for (String line : lines) {
      String t = line.trim();
      if (t.startsWith("// docs: ")) {
        current = new ArrayList<>();
      } else if (t.equals("// end docs") && current != null) {
        int indent = current.stream().filter(l -> !l.isBlank())
            .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        StringBuilder b = new StringBuilder();
        for (String l : current) {
          b.append(l.length() >= indent ? l.substring(indent) : l.strip()).append('\n');
        }
        out.add(b.toString());
        current = null;
      } else if (current != null) {
        current.add(line);
      }
    }
    return out;
  }
}
