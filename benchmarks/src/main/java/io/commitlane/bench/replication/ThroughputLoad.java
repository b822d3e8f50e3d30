package io.commitlane.bench.replication;

import java.util.List;

/**
 * One load of {@code replication}'s throughput part, run the same way on every variant: {@code
 * clients} clients, each keeping {@code inFlight} commits going, each commit of {@code shape}.
 *
 * @param name what {@code --loads} calls it
 * @param label what the tables call it
 */
record ThroughputLoad(String name, String label, int clients, int inFlight, CommitShape shape) {
  static final ThroughputLoad ONE = new ThroughputLoad("1x1", "1 client x 1 in flight", 1, 1, CommitShape.ONE_KEY);
  static final ThroughputLoad EIGHT = new ThroughputLoad("8x8", "8 clients x 8 in flight", 8, 8, CommitShape.ONE_KEY);
  static final ThroughputLoad EIGHT_DEEP = new ThroughputLoad("8x32", "8 clients x 32 in flight", 8, 32, CommitShape.ONE_KEY);
  static final ThroughputLoad SIXTEEN_KEYS = new ThroughputLoad("16-keys", "4 clients x 8 in flight, 16-key commits", 4, 8,
      new CommitShape(16, CommitShape.Kind.BLIND));
  static final ThroughputLoad CONDITIONAL = new ThroughputLoad("conditional",
      "1 client x 1 in flight, read-modify-write of one key through a follower", 1, 1, new CommitShape(1, CommitShape.Kind.READ_MODIFY_WRITE));
  static final List<ThroughputLoad> ALL = List.of(ONE, EIGHT, EIGHT_DEEP, SIXTEEN_KEYS, CONDITIONAL);

  static ThroughputLoad named(String name) {
    return ALL.stream().filter(l -> l.name.equals(name)).findFirst().orElseThrow(() -> new IllegalArgumentException(name));
  }

  static List<String> names() {
    return ALL.stream().map(ThroughputLoad::name).toList();
  }

  /** One client, through a follower: the loads that measure a commit's latency rather than the group's throughput. */
  boolean throughFollower() {
    return clients == 1;
  }
}
