package io.commitlane.storage.internal;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.commitlane.storage.KeyValue;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class PrintableBytesTest {
  @Test
  void printableUtf8IsQuotedTextAndAnythingElseIsHex() {
    assertEquals("\"order/7\"", PrintableBytes.of("order/7".getBytes(UTF_8)));
    assertEquals("\"café ☕\"", PrintableBytes.of("café ☕".getBytes(UTF_8)), "UTF-8 beyond ASCII is text");
    assertEquals("0x00ff", PrintableBytes.of(new byte[] {0, (byte) 0xff}));
    assertEquals("0x6c696e650a", PrintableBytes.of("line\n".getBytes(UTF_8)), "a control character makes it hex");
    assertEquals("0xc328", PrintableBytes.of(new byte[] {(byte) 0xc3, 0x28}), "invalid UTF-8 is hex");
    assertEquals("\"\"", PrintableBytes.of(new byte[0]));
    assertEquals("null", PrintableBytes.of((byte[]) null));
  }

  @Test
  void longValuesAreCutAtACharacterBoundaryWithTheirLength() {
    byte[] ascii = new byte[100];
    Arrays.fill(ascii, (byte) 'a');
    assertEquals('"' + "a".repeat(64) + "\"... (100 bytes)", PrintableBytes.of(ascii));
    byte[] accents = "é".repeat(40).getBytes(UTF_8); // two bytes each: the 64-byte cut falls between characters
    assertEquals('"' + "é".repeat(32) + "\"... (80 bytes)", PrintableBytes.of(accents));
    byte[] odd = ("x" + "é".repeat(40)).getBytes(UTF_8); // the cut falls inside a character: it is left out
    assertEquals("\"x" + "é".repeat(31) + "\"... (81 bytes)", PrintableBytes.of(odd));
    byte[] binary = new byte[70];
    assertEquals("0x" + "00".repeat(64) + "... (70 bytes)", PrintableBytes.of(binary));
  }

  @Test
  void listsShowTheirFirstSixteenElements() {
    assertEquals("[\"a\", 0x01, null]", PrintableBytes.of(Arrays.asList("a".getBytes(UTF_8), new byte[] {1}, null)));
    List<byte[]> many = java.util.Collections.nCopies(20, "k".getBytes(UTF_8));
    assertEquals("[" + String.join(", ", java.util.Collections.nCopies(16, "\"k\"")) + ", ... (20 in all)]", PrintableBytes.of(many));
  }

  @Test
  void aKeyValuePrintsItsBytesReadably() {
    assertEquals("KeyValue[\"user/1\" = \"ann\"]", new KeyValue("user/1".getBytes(UTF_8), "ann".getBytes(UTF_8)).toString());
    assertEquals("KeyValue[0x01]", new KeyValue(new byte[] {1}, null).toString());
  }
}
