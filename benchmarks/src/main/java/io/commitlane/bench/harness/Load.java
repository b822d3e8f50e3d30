package io.commitlane.bench.harness;

/** How many threads commit, and how many random keys each commit writes. */
public record Load(int threads, int keys) {
  @Override
  public String toString() {
    return threads + " thread" + (threads == 1 ? "" : "s") + " x " + keys + " key" + (keys == 1 ? "" : "s");
  }
}
