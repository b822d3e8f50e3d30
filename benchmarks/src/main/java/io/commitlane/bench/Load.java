package io.commitlane.bench;

/** How many threads commit, and how many random keys each commit writes. */
record Load(int threads, int keys) {
  @Override
  public String toString() {
    return threads + " thread" + (threads == 1 ? "" : "s") + " x " + keys + " key" + (keys == 1 ? "" : "s");
  }
}
