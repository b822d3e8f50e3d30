package io.commitlane.bench.cli;

import io.commitlane.bench.Main;

/** Flag checks that fail with picocli's usage error (exit code 2) naming the flag. */
public final class Checks {
  private Checks() {}

  public static void positive(String flag, double v) {
    if (!(v > 0)) {
      throw usage(flag + " must be positive, was " + v);
    }
  }

  public static void nonNegative(String flag, double v) {
    if (!(v >= 0)) {
      throw usage(flag + " must be zero or more, was " + v);
    }
  }

  public static void range(String flag, long v, long min, long max) {
    if (v < min || v > max) {
      throw usage(flag + " must be in " + min + ".." + max + ", was " + v);
    }
  }

  public static void oneOf(String flag, String v, java.util.List<String> allowed) {
    if (!allowed.contains(v)) {
      throw usage(flag + " must be one of " + String.join(", ", allowed) + ", was " + v);
    }
  }

  public static IllegalArgumentException usage(String message) {
    return new UsageException(message);
  }

  /** Mapped to exit code 2 by {@link Main}. */
  public static final class UsageException extends IllegalArgumentException {
    public UsageException(String message) {
      super(message);
    }
  }

  /** A durability flag's value: true for {@code fsync}, false for {@code process}, a usage error otherwise. */
  public static boolean fsyncDurability(String flag, String value) {
    return switch (value) {
      case "process" -> false;
      case "fsync" -> true;
      default -> throw usage(flag + ": '" + value + "' is not process or fsync");
    };
  }
}
