package io.commitlane.bench.harness;

import java.io.PrintStream;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * A one-line status for long runs, rewritten in place on stderr about once a second ("\r", no
 * newline), and erased when the run ends. Shown only on a terminal or when forced (--progress),
 * so logs and captured output stay clean.
 */
public final class ProgressLine implements AutoCloseable {
  private static final long PERIOD_MILLIS = 1000;

  private final PrintStream err;
  private final Supplier<String> status;
  private final Thread ticker;
  private volatile boolean running = true;
  private int lastWidth;

  private ProgressLine(PrintStream err, Supplier<String> status) {
    this.err = err;
    this.status = status;
    this.ticker = new Thread(this::tick, "commitlane-progress");
    this.ticker.setDaemon(true);
  }

  /** Starts the line if {@code forced} or stderr looks like a terminal; otherwise a no-op. */
  public static ProgressLine start(PrintStream err, boolean forced, Supplier<String> status) {
    ProgressLine p = new ProgressLine(err, status);
    if (forced || System.console() != null) {
      p.ticker.start();
    }
    return p;
  }

  private void tick() {
    while (running) {
      draw(status.get());
      synchronized (this) {
        try {
          wait(PERIOD_MILLIS); // woken early by close()
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  private synchronized void draw(String line) {
    if (!running) {
      return;
    }
    String padded = line.length() < lastWidth ? line + " ".repeat(lastWidth - line.length()) : line;
    err.print("\r" + padded);
    err.flush();
    lastWidth = line.length();
  }

  /** Prints a line of output above the status (erasing it first, so the two never mix on a terminal). */
  public synchronized void println(PrintStream out, String line) {
    if (lastWidth > 0) {
      err.print("\r" + " ".repeat(lastWidth) + "\r");
      err.flush();
      lastWidth = 0;
    }
    out.println(line);
    out.flush();
  }

  /** "01:05" */
  public static String clock(double seconds) {
    long s = Math.max(0, Math.round(seconds));
    return String.format(Locale.ROOT, "%02d:%02d", s / 60, s % 60);
  }

  @Override
  public void close() throws InterruptedException {
    synchronized (this) {
      running = false;
      if (lastWidth > 0) {
        err.print("\r" + " ".repeat(lastWidth) + "\r");
        err.flush();
      }
      notifyAll();
    }
    if (ticker.isAlive()) {
      ticker.join();
    }
  }
}
