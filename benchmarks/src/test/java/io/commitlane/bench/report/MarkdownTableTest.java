package io.commitlane.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class MarkdownTableTest {
  @Test
  void writesTheHeaderTheAlignmentRowAndOneLinePerRow() {
    String table = MarkdownTable.of("variant", "commits/s", "x raw")
        .row("pipeline", "12.3k [11.0k-13.1k]", 1.5)
        .row("raw", 10, "1.00x")
        .toString();
    assertEquals("| variant | commits/s | x raw |\n|---|---|---|\n| pipeline | 12.3k [11.0k-13.1k] | 1.5 |\n| raw | 10 | 1.00x |\n", table);
  }

  @Test
  void anEmptyCellIsOneSpaceWide() {
    assertEquals("| a | b | c |\n|---|---|---|\n| x | not measured | |\n",
        MarkdownTable.of("a", "b", "c").row("x", "not measured", "").toString());
  }

  @Test
  void aColumnMayBeAligned() {
    assertEquals("| a | b |\n|:---|---:|\n", MarkdownTable.of("a", "b").align(0, MarkdownTable.Align.LEFT)
        .align(1, MarkdownTable.Align.RIGHT).toString());
  }

  @Test
  void aRowOfTheWrongWidthIsRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MarkdownTable.of("a", "b").row("only one"));
    assertEquals("a row of 1 cells in a table of 2 columns", e.getMessage());
  }

  @Test
  void appendsAfterWhatTheBuilderHolds() {
    StringBuilder sb = new StringBuilder("### title\n\n");
    MarkdownTable.of("a").row("1").appendTo(sb);
    assertEquals("### title\n\n| a |\n|---|\n| 1 |\n", sb.toString());
  }
}
