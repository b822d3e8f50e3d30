package io.commitlane.bench;

import java.util.Locale;

/** Human-readable numbers for tables. */
final class Units {
  private Units() {}

  static String count(double v) {
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

  static String ratio(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2fx", v);
  }

  static String percent(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.1f%%", v * 100);
  }

  static String micros(double nanos) {
    return Double.isNaN(nanos) ? "-" : String.format(Locale.ROOT, "%.1f", nanos / 1000);
  }

  static String mib(double bytes) {
    return String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024));
  }

  /** "100 B", "1 KiB", "8 KiB", "1.5 GiB": whole numbers when exact. */
  static String bytes(long n) {
    if (n < 1024) {
      return n + " B";
    }
    int u = (63 - Long.numberOfLeadingZeros(n)) / 10;
    long unit = 1L << (u * 10);
    String name = "KMGTPE".charAt(u - 1) + "iB";
    return n % unit == 0 ? n / unit + " " + name : String.format(Locale.ROOT, "%.1f %s", n / (double) unit, name);
  }

  /** A CSV cell: three decimals, empty when unknown. */
  static String csv(double v) {
    return Double.isNaN(v) || Double.isInfinite(v) ? "" : String.format(Locale.ROOT, "%.3f", v);
  }
}
