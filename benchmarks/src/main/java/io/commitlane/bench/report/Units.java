package io.commitlane.bench.report;

import java.util.Locale;

/** Human-readable numbers for tables. */
public final class Units {
  private Units() {}

  public static String count(double v) {
    if (Double.isNaN(v)) {
      return "-";
    }
    if (v >= 100_000) {
      return String.format(Locale.ROOT, "%.0fk", v / 1000);
    }
    if (v >= 10_000) {
      return String.format(Locale.ROOT, "%.1fk", v / 1000);
    }
    if (v >= 1_000) {
      return String.format(Locale.ROOT, "%.2fk", v / 1000);
    }
    return String.format(Locale.ROOT, "%.0f", v);
  }

  public static String ratio(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2fx", v);
  }

  public static String percent(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.1f%%", v * 100);
  }

  public static String micros(double nanos) {
    return Double.isNaN(nanos) ? "-" : String.format(Locale.ROOT, "%.1f", nanos / 1000);
  }

  public static String mib(double bytes) {
    return String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024));
  }

  /** "100 B", "1 KiB", "8 KiB", "1.5 GiB": whole numbers when exact. */
  public static String bytes(long n) {
    if (n < 1024) {
      return n + " B";
    }
    int u = (63 - Long.numberOfLeadingZeros(n)) / 10;
    long unit = 1L << (u * 10);
    String name = "KMGTPE".charAt(u - 1) + "iB";
    return n % unit == 0 ? n / unit + " " + name : String.format(Locale.ROOT, "%.1f %s", n / (double) unit, name);
  }

  /** A CSV cell: three decimals, empty when unknown. */
  public static String csv(double v) {
    return Double.isNaN(v) || Double.isInfinite(v) ? "" : String.format(Locale.ROOT, "%.3f", v);
  }
}
