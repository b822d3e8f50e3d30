package io.commitlane.bench.harness;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Ctrl-C for long runs: a JVM shutdown hook that asks the running measurement to stop, then waits
 * (bounded) until the command has printed what it measured so far. The measurement loop sees the
 * request at its next {@link #checkpoint()} (every timed pause calls it) and unwinds through its
 * normal clean-up: workers join, databases close, temporary directories are deleted.
 *
 * <p>Process-wide on purpose: a signal is. Commands that report partial results call {@link
 * #arm()} when they start and {@link #finished()} once they printed.
 */
public final class StopSignal {
  /** How long the hook lets a command finish its partial report before the JVM exits anyway. */
  private static final long REPORT_GRACE_SECONDS = 60;

  private static volatile boolean requested;
  /** Set only by the shutdown hook: the JVM is exiting, so the command must return, not call exit(). */
  private static volatile boolean signalled;
  private static volatile CountDownLatch reported = new CountDownLatch(0);
  private static Thread hook;

  private StopSignal() {}

  /** Thrown out of a measurement when a stop was requested; carries no partial cell. */
  public static final class StoppedException extends RuntimeException {
    StoppedException() {
      super("stopped on request (Ctrl-C)");
    }
  }

  /** Start watching for Ctrl-C (SIGINT/SIGTERM) for the command now running. */
  public static synchronized void arm() {
    requested = false;
    reported = new CountDownLatch(1);
    if (hook == null) {
      hook = new Thread(StopSignal::onShutdown, "commitlane-stop");
      Runtime.getRuntime().addShutdownHook(hook);
    }
  }

  /** The command printed its results (complete or partial): the JVM may exit now, and a later command starts unstopped. */
  public static void finished() {
    requested = false;
    reported.countDown();
  }

  /** Ask the running measurement to stop, as Ctrl-C does. */
  public static void request() {
    requested = true;
  }

  public static boolean requested() {
    return requested;
  }

  /** True once Ctrl-C (or a kill) started the JVM's shutdown. */
  public static boolean signalled() {
    return signalled;
  }

  /** Throws {@link StoppedException} once a stop was requested. */
  public static void checkpoint() {
    if (requested) {
      throw new StoppedException();
    }
  }

  private static void onShutdown() {
    signalled = true;
    requested = true;
    try {
      reported.await(REPORT_GRACE_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
