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

/** The request-ids scenario: the one-node cluster's clients, rotated between writes without and with a request id each. */
final class ClusterRequestIds {
  private final int runs;
  private final ShardedWriteLoad load;

  ClusterRequestIds(int runs, ShardedWriteLoad load) {
    this.runs = runs;
    this.load = load;
  }

  /** Prints each measurement and returns the table. */
  String measure(List<ActorSystem<Void>> single) throws Exception {
    List<DatabaseSharding> nodes = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      nodes.add(DatabaseSharding.init(single.get(0)));
    }
    load.openAll(nodes.get(0));
    String without = "without request ids";
    String with = "with a request id each";
    Map<String, List<Double>> rates = new LinkedHashMap<>();
    rates.put(without, new ArrayList<>());
    rates.put(with, new ArrayList<>());
    for (int r = 0; r < runs; r++) {
      for (int i = 0; i < 2; i++) {
        boolean ids = (i + r) % 2 == 1;
        double rate = load.drive(nodes, ids).committed();
        rates.get(ids ? with : without).add(rate);
        System.out.printf(Locale.ROOT, "  request ids run %d  %-24s %10s commits/s%n", r + 1, ids ? with : without, Units.count(rate));
      }
    }
    StringBuilder t = new StringBuilder(String.format(Locale.ROOT,
        "1 node, %d clients x %d in flight, 1-key writes of %d-byte values to %d databases:%n%n", 3 * load.clients, load.inFlight,
        ShardedWriteLoad.VALUE_BYTES, load.databases));
    MarkdownTable table = MarkdownTable.of("writes", "commits/s median [range]", "x without");
    double base = Spread.of(rates.get(without)).median();
    for (String name : rates.keySet()) {
      Spread s = Spread.of(rates.get(name));
      table.row(name, s.format(), Units.ratio(s.median() / base));
    }
    table.appendTo(t);
    return t.append('\n').toString();
  }
}
