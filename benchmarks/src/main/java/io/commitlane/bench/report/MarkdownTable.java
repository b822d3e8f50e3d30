package io.commitlane.bench.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A Markdown table as every command prints one: a header row, the alignment row ({@code |---|} by default) and the data
 * rows, each cell padded by one space ({@code | a | b |}); an empty cell is written {@code | |}. Build it with
 * {@link #of}, add rows with {@link #row}, and {@link #toString()} is the table, each line ending in a newline.
 */
public final class MarkdownTable {
  /** How a column's cells line up: {@code ---}, {@code :---}, {@code ---:} or {@code :---:}. */
  public enum Align {
    NONE("---"), LEFT(":---"), RIGHT("---:"), CENTER(":---:");

    private final String marker;

    Align(String marker) {
      this.marker = marker;
    }
  }

  private final List<String> header;
  private final Align[] align;
  private final List<List<String>> rows = new ArrayList<>();

  private MarkdownTable(List<String> header) {
    this.header = header;
    this.align = new Align[header.size()];
    Arrays.fill(align, Align.NONE);
  }

  /** A table with these column headings. */
  public static MarkdownTable of(String... header) {
    return of(List.of(header));
  }

  /** A table with these column headings. */
  public static MarkdownTable of(List<String> header) {
    if (header.isEmpty()) {
      throw new IllegalArgumentException("a table needs at least one column");
    }
    return new MarkdownTable(List.copyOf(header));
  }

  /** Sets one column's alignment. */
  public MarkdownTable align(int column, Align a) {
    align[column] = a;
    return this;
  }

  /** Adds a row; a cell is its {@code String.valueOf}. A row must have as many cells as the header. */
  public MarkdownTable row(Object... cells) {
    return row(Arrays.asList(cells));
  }

  /** Adds a row; a cell is its {@code String.valueOf}. A row must have as many cells as the header. */
  public MarkdownTable row(List<?> cells) {
    if (cells.size() != header.size()) {
      throw new IllegalArgumentException("a row of " + cells.size() + " cells in a table of " + header.size() + " columns");
    }
    rows.add(cells.stream().map(String::valueOf).toList());
    return this;
  }

  /** The number of data rows. */
  public int rows() {
    return rows.size();
  }

  /** Appends the table to {@code sb} and returns it. */
  public StringBuilder appendTo(StringBuilder sb) {
    line(sb, header);
    sb.append('|');
    for (Align a : align) {
      sb.append(a.marker).append('|');
    }
    sb.append('\n');
    for (List<String> row : rows) {
      line(sb, row);
    }
    return sb;
  }

  private static void line(StringBuilder sb, List<String> cells) {
    sb.append('|');
    for (String c : cells) {
      sb.append(c.isEmpty() ? " " : " " + c + " ").append('|');
    }
    sb.append('\n');
  }

  /** The table: header, alignment row and data rows, each line ending in a newline. */
  @Override
  public String toString() {
    return appendTo(new StringBuilder()).toString();
  }
}
