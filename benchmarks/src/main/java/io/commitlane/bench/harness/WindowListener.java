package io.commitlane.bench.harness;

/** Told when a run's measured window opens and closes, to measure something else over the same window. */
public interface WindowListener {
  WindowListener NONE = new WindowListener() {};

  default void windowOpened() {}

  default void windowClosed() throws Exception {}

  /** Both, in order. */
  default WindowListener and(WindowListener other) {
    WindowListener first = this;
    return new WindowListener() {
      @Override
      public void windowOpened() {
        first.windowOpened();
        other.windowOpened();
      }

      @Override
      public void windowClosed() throws Exception {
        first.windowClosed();
        other.windowClosed();
      }
    };
  }
}
