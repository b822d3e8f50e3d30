package io.commitlane.bench.replication;

import io.commitlane.bench.harness.WindowListener;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.ratis.metrics.MetricRegistries;
import org.apache.ratis.metrics.RatisMetricRegistry;
import org.apache.ratis.metrics.impl.RatisMetricRegistryImpl;
import org.apache.ratis.thirdparty.com.codahale.metrics.Counter;
import org.apache.ratis.thirdparty.com.codahale.metrics.Metric;
import org.apache.ratis.thirdparty.com.codahale.metrics.Timer;

/**
 * Where a replicated commit's time and CPU go, over one measured window ({@code replication
 * --diagnose}): the change of every counter and timer count Ratis keeps (log flushes, entries
 * appended, AppendEntries sent and received, client requests; one registry per node and group,
 * all in this JVM), each timer's mean over the window's end (Ratis's timers decay, so it is
 * recent, not exact), and the CPU time of this JVM's threads grouped by node and role.
 */
final class RaftMetricsWindow implements WindowListener {
  /** Ratis names its threads after the member ({@code n0@group-...}) or the server ({@code n0-...}). */
  private static final Pattern NODE = Pattern.compile("^(n\\d+)[@\\-]|replica-(n\\d+)-");

  private Map<String, Long> startCounts = Map.of();
  private Map<String, Long> startCpu = Map.of();
  /** Counter and timer-count changes over the window, by metric name. */
  private final Map<String, Long> counts = new TreeMap<>();
  /** Timers' means at the window's end, milliseconds, by metric name. */
  private final Map<String, Double> meansMillis = new TreeMap<>();
  /** CPU nanoseconds over the window by "node role" ("n0 log worker", "client load", ...). */
  private final Map<String, Long> cpu = new TreeMap<>();

  @Override
  public void windowOpened() {
    startCounts = counts(null);
    startCpu = threadCpu();
  }

  @Override
  public void windowClosed() {
    Map<String, Double> means = new TreeMap<>();
    Map<String, Long> end = counts(means);
    end.forEach((name, n) -> {
      long d = n - startCounts.getOrDefault(name, 0L);
      if (d != 0) {
        counts.put(name, d);
      }
    });
    means.forEach((name, m) -> {
      if (counts.containsKey(name)) {
        meansMillis.put(name, m);
      }
    });
    Map<String, Long> endCpu = threadCpu();
    endCpu.forEach((group, n) -> {
      long d = n - startCpu.getOrDefault(group, 0L);
      if (d > 0) {
        cpu.put(group, d);
      }
    });
  }

  Map<String, Long> counts() {
    return counts;
  }

  Map<String, Double> meansMillis() {
    return meansMillis;
  }

  Map<String, Long> cpuNanos() {
    return cpu;
  }

  /** Every counter's count and timer's count (and, when {@code means} is given, each timer's mean in ms). */
  private static Map<String, Long> counts(Map<String, Double> means) {
    Map<String, Long> out = new LinkedHashMap<>();
    for (RatisMetricRegistry r : MetricRegistries.global().getMetricRegistries()) {
      if (!(r instanceof RatisMetricRegistryImpl impl)) {
        continue;
      }
      for (Map.Entry<String, Metric> e : impl.getDropWizardMetricRegistry().getMetrics().entrySet()) {
        if (e.getValue() instanceof Counter c) {
          out.merge(e.getKey(), c.getCount(), Long::sum);
        } else if (e.getValue() instanceof Timer t) {
          out.merge(e.getKey(), t.getCount(), Long::sum);
          if (means != null) {
            means.put(e.getKey(), t.getSnapshot().getMean() / 1e6);
          }
        }
      }
    }
    return out;
  }

  /** CPU time of every live thread of this JVM, summed by node and role. */
  private static Map<String, Long> threadCpu() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    Map<String, Long> out = new TreeMap<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      long n = threads.getThreadCpuTime(t.getId());
      if (n > 0) {
        out.merge(group(t.getName()), n, Long::sum);
      }
    }
    return out;
  }

  /** "n0 log worker", "n1 apply", "n0 appender", "grpc", "client load", ... */
  static String group(String thread) {
    Matcher m = NODE.matcher(thread);
    String node = m.find() ? (m.group(1) != null ? m.group(1) : m.group(2)) + " " : "";
    String role;
    if (thread.contains("SegmentedRaftLogWorker")) {
      role = "log worker";
    } else if (thread.contains("StateMachineUpdater")) {
      role = "apply";
    } else if (thread.contains("LogAppender")) {
      role = "appender";
    } else if (thread.contains("completion")) {
      role = "completion";
    } else if (thread.contains("EventProcessor") || thread.contains("LeaderStateImpl")) {
      role = "leader events";
    } else if (thread.contains("server") || thread.contains("impl")) {
      role = "server executor";
    } else if (thread.startsWith("grpc") || thread.contains("netty") || thread.contains("ELG")) {
      role = "grpc";
    } else if (thread.startsWith("commitlane-replicated-load") || thread.startsWith("commitlane-etcd-load")) {
      role = "client load";
    } else if (!node.isEmpty()) {
      role = "other";
    } else {
      role = "other (" + thread.replaceAll("[-_ ]?\\d+$", "").replaceAll("\\d+", "#") + ")";
    }
    return node + role;
  }
}
