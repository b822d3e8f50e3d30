package io.commitlane.bench.cluster;

import io.commitlane.bench.harness.Spread;
import io.commitlane.bench.report.MarkdownTable;
import io.commitlane.bench.report.Units;
import io.commitlane.cluster.DatabaseSharding;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * The throughput scenario: commits/s of a three-node cluster (databases spread over the nodes,
 * clients on every node) against a one-node cluster with as many clients and the same databases,
 * rotated, {@code runs} rounds.
 */
final class ClusterThroughput {
  private final int runs;
  private final ShardedWriteLoad load;

  ClusterThroughput(int runs, ShardedWriteLoad load) {
    this.runs = runs;
    this.load = load;
  }

  /** Prints each measurement and returns the table. */
  String measure(List<ActorSystem<Void>> single, List<ActorSystem<Void>> three) throws Exception {
    Map<String, List<Double>> rates = new LinkedHashMap<>();
    Map<String, List<Double>> conflicts = new LinkedHashMap<>();
    Map<String, List<Double>> failures = new LinkedHashMap<>();
    String oneName = "1 node, " + 3 * load.clients + " clients";
    String threeName = "3 nodes, " + load.clients + " clients on each";
    rates.put(oneName, new ArrayList<>());
    rates.put(threeName, new ArrayList<>());
    for (String n : List.of(oneName, threeName)) {
      conflicts.put(n, new ArrayList<>());
      failures.put(n, new ArrayList<>());
    }
    List<DatabaseSharding> oneClients = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      oneClients.add(DatabaseSharding.init(single.get(0))); // 3x the clients, on the one node
    }
    List<DatabaseSharding> threeClients = three.stream().map(DatabaseSharding::init).toList();
    load.openAll(oneClients.get(0));
    load.openAll(threeClients.get(0));
    for (int r = 0; r < runs; r++) {
      for (int i = 0; i < 2; i++) {
        boolean one = (i + r) % 2 == 0;
        ShardedWriteLoad.Rates m = load.drive(one ? oneClients : threeClients, false);
        String name = one ? oneName : threeName;
        rates.get(name).add(m.committed());
        conflicts.get(name).add(m.conflicted());
        failures.get(name).add(m.failed());
        System.out.printf(Locale.ROOT, "  throughput run %d  %-34s %10s commits/s  (%s conflicts/s, %s failed/s)%n", r + 1, name,
            Units.count(m.committed()), Units.count(m.conflicted()), Units.count(m.failed()));
      }
    }
    StringBuilder t = new StringBuilder(String.format(Locale.ROOT,
        "%d databases, 1-key commits of %d-byte values, %d in flight per client:%n%n", load.databases, ShardedWriteLoad.VALUE_BYTES,
        load.inFlight));
    MarkdownTable table = MarkdownTable.of("cluster", "commits/s median [range]", "x 1 node", "conflicts/s", "other failures/s");
    double base = Spread.of(rates.get(oneName)).median();
    for (String name : rates.keySet()) {
      Spread s = Spread.of(rates.get(name));
      table.row(name, s.format(), Units.ratio(s.median() / base), Units.count(Spread.of(conflicts.get(name)).median()),
          Units.count(Spread.of(failures.get(name)).median()));
    }
    table.appendTo(t);
    t.append("\nDatabases per owner in the 3-node cluster: ").append(load.owners(threeClients.get(0))).append('\n');
    return t.append('\n').toString();
  }
}
