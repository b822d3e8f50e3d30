package io.commitlane.actors;

/**
 * Failure points of the pipeline that this module's tests can arm: each is checked where the
 * real failure would surface. Disarmed, each costs a volatile read where it is checked. Not
 * public: no user or other module can make a database fail on purpose.
 */
final class Faults {
  private volatile int failExecutorStartsFrom = Integer.MAX_VALUE;

  /** Executors numbered {@code n} and above fail to start, as if no thread could be created. */
  void failExecutorStartsFrom(int n) {
    failExecutorStartsFrom = n;
  }

  void reset() {
    failExecutorStartsFrom = Integer.MAX_VALUE;
  }

  void beforeExecutorStart(int n) {
    if (n >= failExecutorStartsFrom) {
      throw new IllegalStateException("injected: cannot start a thread for commit executor " + n);
    }
  }
}
