package io.commitlane.testsupport;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The keys a {@code reference.conf} (or a page's copy of it) sets under {@code commitlane}, each
 * with the comment block above it, so that a test can compare them with the settings' definitions:
 * every key defined, every definition a key, and each comment stating the definition's range.
 */
public final class ReferenceConfKeys {
  private static final Pattern OPEN = Pattern.compile("^\\s*([A-Za-z0-9.-]+)\\s*\\{\\s*$");
  private static final Pattern SETTING = Pattern.compile("^\\s*([A-Za-z0-9.\"-]+)\\s*=.*$");

  private ReferenceConfKeys() {}

  /**
   * The keys under {@code commitlane { }} of {@code hocon}, relative to {@code commitlane} ({@code
   * cluster.ask-timeout}), except those starting with one of {@code otherSections} (sections that
   * are not settings, such as a dispatcher's), each with the comment block above it (shared by keys
   * that follow one comment together, and by the keys of a section whose comment is above the
   * section). Keys are read one a line, as {@code key = value}, inside {@code name {} sections.
   */
  public static Map<String, String> commented(String hocon, List<String> otherSections) {
    return commented(hocon, "commitlane", otherSections);
  }

  /** As {@link #commented(String, List)}, for the keys under {@code root} (a top-level section), relative to it. */
  public static Map<String, String> commented(String hocon, String root, List<String> otherSections) {
    Map<String, String> keys = new TreeMap<>();
    Deque<String> sections = new ArrayDeque<>();
    StringBuilder comment = new StringBuilder();
    boolean lastWasComment = false;
    for (String line : hocon.split("\n")) {
      String t = line.trim();
      if (t.startsWith("#")) {
        if (!lastWasComment) {
          comment.setLength(0);
        }
        comment.append(t.substring(1).trim()).append(' ');
        lastWasComment = true;
        continue;
      }
      lastWasComment = false;
      Matcher m;
      if ((m = OPEN.matcher(line)).matches()) {
        sections.addLast(m.group(1));
      } else if (t.equals("}")) {
        sections.removeLast();
      } else if ((m = SETTING.matcher(line)).matches() && !t.endsWith("{}")) {
        String path = String.join(".", sections) + "." + m.group(1);
        if (path.startsWith(root + ".")) {
          String key = path.substring(root.length() + 1);
          if (otherSections.stream().noneMatch(key::startsWith)) {
            keys.put(key, comment.toString());
          }
        }
      }
    }
    return keys;
  }
}
