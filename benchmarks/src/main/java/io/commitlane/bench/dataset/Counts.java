package io.commitlane.bench.dataset;

import java.math.BigDecimal;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Counts written with decimal suffixes, as key counts are: {@code 1M} = 1,000,000, {@code 500K}, {@code 1.5G}, or plain digits. */
public final class Counts {
  private static final long[] SCALES = {1_000_000_000L, 1_000_000L, 1_000L};
  private static final String SUFFIXES = "GMK";

  private Counts() {}

  static long parse(String text) {
    String t = text.trim().toUpperCase(Locale.ROOT).replace("_", "");
    long scale = 1;
    int suffix = t.isEmpty() ? -1 : SUFFIXES.indexOf(t.charAt(t.length() - 1));
    if (suffix >= 0) {
      scale = SCALES[suffix];
      t = t.substring(0, t.length() - 1);
    }
    try {
      return new BigDecimal(t).multiply(BigDecimal.valueOf(scale)).longValueExact();
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException("'" + text + "' is not a count such as 1000, 500K, 1M or 1.5G");
    }
  }

  /** {@code 1M}, {@code 10M}, {@code 500K} when exact; otherwise the digits. */
  static String format(long n) {
    for (int i = 0; i < SCALES.length; i++) {
      if (n != 0 && n % SCALES[i] == 0) {
        return n / SCALES[i] + SUFFIXES.substring(i, i + 1);
      }
    }
    return Long.toString(n);
  }

  /** picocli's converter: a bad count is a usage error naming the flag. */
  public static final class Converter implements ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
      try {
        return parse(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }
}
