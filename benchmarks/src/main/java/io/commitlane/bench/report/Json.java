package io.commitlane.bench.report;

import java.util.Collection;
import java.util.Iterator;
import java.util.Map;

/** Writes maps, lists, strings, numbers and booleans as JSON; NaN and infinities become null. */
public final class Json {
  private Json() {}

  public static String write(Object value) {
    StringBuilder sb = new StringBuilder();
    write(sb, value);
    return sb.toString();
  }

  private static void write(StringBuilder sb, Object v) {
    if (v == null) {
      sb.append("null");
    } else if (v instanceof String s) {
      string(sb, s);
    } else if (v instanceof Double d) {
      number(sb, d);
    } else if (v instanceof Float f) {
      number(sb, f.doubleValue());
    } else if (v instanceof Number || v instanceof Boolean) {
      sb.append(v);
    } else if (v instanceof Map<?, ?> m) {
      sb.append('{');
      Iterator<? extends Map.Entry<?, ?>> it = m.entrySet().iterator();
      while (it.hasNext()) {
        Map.Entry<?, ?> e = it.next();
        string(sb, String.valueOf(e.getKey()));
        sb.append(':');
        write(sb, e.getValue());
        if (it.hasNext()) {
          sb.append(',');
        }
      }
      sb.append('}');
    } else if (v instanceof Collection<?> c) {
      sb.append('[');
      Iterator<?> it = c.iterator();
      while (it.hasNext()) {
        write(sb, it.next());
        if (it.hasNext()) {
          sb.append(',');
        }
      }
      sb.append(']');
    } else {
      string(sb, v.toString());
    }
  }

  private static void number(StringBuilder sb, double d) {
    if (Double.isNaN(d) || Double.isInfinite(d)) {
      sb.append("null");
    } else if (d == Math.rint(d) && Math.abs(d) < 1e15) {
      sb.append((long) d);
    } else {
      sb.append(java.math.BigDecimal.valueOf(d).round(new java.math.MathContext(6)).stripTrailingZeros().toPlainString()); // 6 digits: plenty for a noisy measurement
    }
  }

  private static void string(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20) {
            sb.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    sb.append('"');
  }
}
