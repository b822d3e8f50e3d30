package io.commitlane.bench.replica;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.bench.CliRun;
import io.commitlane.bench.Main;
import io.commitlane.replication.ReplicaPeer;
import io.commitlane.replication.ReplicatedDatabase;
import io.commitlane.replication.ReplicatedTransaction;
import io.commitlane.replication.ReplicationGroup;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/deployment.md, run as written: its settings file and commands, with each machine's address
 * and port turned into a loopback address and a free port and each machine's directories into
 * temporary ones. Three nodes run as processes of their own ({@code replica run}, as {@code
 * ./commitlane} runs it); the status command finds the group healthy, the client snippet commits
 * and reads through it, a stopped node is reported, and the same start command brings it back. Then
 * a fourth node joins (its process started while c starts again), is added (four voters, a commit
 * reaches it) and removed (three again), by the guide's membership commands, run from this process,
 * which hosts no replica.
 */
class DeploymentGuideTest {
  private static final Path GUIDE = Path.of("..", "docs", "deployment.md");
  private static final Path SOURCE = Path.of("src", "test", "java", "io", "commitlane", "bench", "replica", "DeploymentGuideTest.java");
  private static final List<String> NODES = List.of("a", "b", "c");
  private static final Duration WAIT = Duration.ofSeconds(120);

  @TempDir Path dir;

  private final Map<String, Process> running = new LinkedHashMap<>();

  @AfterEach
  void stopAll() throws InterruptedException {
    for (Process p : running.values()) {
      p.destroy();
    }
    for (Process p : running.values()) {
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
  }

  @Test
  void theGuidesSettingsAndCommandsRunAGroupAClientARestartAndAMembershipChange() throws Exception {
    String guide = Files.readString(GUIDE);
    int[] ports = ReplicaStatusEndpoint.freePortPairs(NODES.size() + 1); // the Raft port and the status endpoint's; d joins later

    // Each machine: its address and port on loopback, its directories under the test's.
    String settings = fence(guide, "<!-- deployment: settings", "hocon");
    String settingsPath = firstLineComment(settings);
    String start = oneLine(fence(guide, "<!-- deployment: start", "bash"));
    String status = oneLine(fence(guide, "<!-- deployment: status", "bash"));
    for (int i = 0; i < NODES.size(); i++) {
      String node = NODES.get(i);
      Path machine = Files.createDirectories(dir.resolve(node));
      Path settingsFile = machine.resolve(settingsPath.substring(1));
      Files.createDirectories(settingsFile.getParent());
      Files.writeString(settingsFile, settings);
      running.put(node, startNode(node, machine, localize(start.replace("--id a", "--id " + node), ports, machine)));
    }
    for (String node : NODES) {
      awaitLine(node, "hosting shop as " + node + " at 127.0.0.1:");
    }

    // The status command: one leader, two followers, exit 0.
    String[] statusArgs = args(localize(status, ports, dir));
    CliRun healthy = awaitHealthy(statusArgs);
    assertEquals(1, healthy.out().lines().filter(l -> l.contains(" LEADER ")).count(), healthy.out());
    assertEquals(2, healthy.out().lines().filter(l -> l.contains(" FOLLOWER ")).count(), healthy.out());

    // The service's client, from its configuration.
    assertShown(guide, SOURCE, "client");
    String members = fence(guide, "<!-- deployment: service-settings", "hocon");
    Matcher m = Pattern.compile("shop.replicas = \"([^\"]+)\"").matcher(members);
    assertTrue(m.find(), members);
    System.setProperty("shop.replicas", localize(m.group(1), ports, dir));
    ConfigFactory.invalidateCaches();
    String printed = captured(() -> {
      // docs: client
      Config config = ConfigFactory.load();
      List<ReplicaPeer> voters = new ArrayList<>();
      for (String member : config.getString("shop.replicas").split(",")) {     // id=host:port
        String[] idAddress = member.trim().split("=");
        int colon = idAddress[1].lastIndexOf(':');
        voters.add(new ReplicaPeer(idAddress[0], idAddress[1].substring(0, colon), Integer.parseInt(idAddress[1].substring(colon + 1))));
      }
      try (ReplicatedDatabase shop = ReplicatedDatabase.connect(new ReplicationGroup("shop", voters), Duration.ofSeconds(10))) {
        ReplicatedTransaction t = shop.begin();                                 // reads go to the leader
        t.put("order/1".getBytes(UTF_8), "placed".getBytes(UTF_8));
        long index = t.commit("order-1".getBytes(UTF_8))                         // a request id: a resend applies once
            .toCompletableFuture().get(30, TimeUnit.SECONDS).index();           // a majority holds it now
        byte[] order = shop.get("order/1".getBytes(UTF_8)).toCompletableFuture().get(30, TimeUnit.SECONDS);
        System.out.println("order/1 = " + new String(order, UTF_8) + " (log index " + index + ")");
      }
      // end docs: client
    });
    System.clearProperty("shop.replicas");
    ConfigFactory.invalidateCaches();
    assertTrue(printed.startsWith("order/1 = placed (log index "), printed);

    // Stop a node (SIGTERM): status reports it and exits 1; the same start command brings it back.
    Process c = running.remove("c");
    c.destroy();
    assertTrue(c.waitFor(60, TimeUnit.SECONDS), "node c ended after SIGTERM");
    CliRun missing = CliRun.of(statusArgs);
    assertEquals(1, missing.code(), missing.out() + missing.err());
    assertTrue(missing.out().lines().anyMatch(l -> l.startsWith("c ") && l.contains("no answer")), missing.out());
    running.put("c", startNode("c", dir.resolve("c"), localize(start.replace("--id a", "--id c"), ports, dir.resolve("c"))));
    // The fourth node's process starts while c starts again (two JVMs starting at once rather than one after the
    // other): it joins the group as it is, whether or not c answers yet.
    Path machineD = Files.createDirectories(dir.resolve("d"));
    Path settingsD = machineD.resolve(settingsPath.substring(1));
    Files.createDirectories(settingsD.getParent());
    Files.writeString(settingsD, settings);
    String join = oneLine(fence(guide, "<!-- deployment: join", "bash"));
    running.put("d", startNode("d", machineD, localize(join, ports, machineD)));
    awaitLine("c", "hosting shop as c at 127.0.0.1:");
    CliRun back = awaitHealthy(statusArgs);
    assertEquals(3, back.out().lines().filter(l -> l.contains(" LEADER ") || l.contains(" FOLLOWER ")).count(), back.out());

    // A fourth node joins with an empty replica (its process started above), is added from this process (a client),
    // and takes commits.
    awaitLine("d", "joined shop as d at 127.0.0.1:" + ports[3]);
    CliRun add = CliRun.of(args(localize(oneLine(fence(guide, "<!-- deployment: add", "bash")), ports, dir)));
    assertEquals(0, add.code(), add.out() + add.err());
    assertTrue(add.out().contains("database shop: added d at 127.0.0.1:" + ports[3] + " as a voter"), add.out());
    String[] fourArgs = args(localize(oneLine(fence(guide, "<!-- deployment: status-after-add", "bash")), ports, dir));
    CliRun four = awaitHealthy(fourArgs);
    assertEquals(1, four.out().lines().filter(l -> l.contains(" LEADER ")).count(), four.out());
    assertEquals(3, four.out().lines().filter(l -> l.contains(" FOLLOWER ")).count(), four.out());
    List<ReplicaPeer> fourVoters = ReplicaCommand.peers(fourArgs[Arrays.asList(fourArgs).indexOf("--peers") + 1]);
    long index;
    try (ReplicatedDatabase shop = ReplicatedDatabase.connect(new ReplicationGroup("shop", fourVoters), Duration.ofSeconds(10))) {
      ReplicatedTransaction t = shop.begin();
      t.put("order/2".getBytes(UTF_8), "placed".getBytes(UTF_8));
      index = t.commit("order-2".getBytes(UTF_8)).toCompletableFuture().get(30, TimeUnit.SECONDS).index();
    }
    awaitApplied(fourArgs, "d", index);

    // The old member list is refused by name, both lists in the message; then d is removed and the group is three again.
    CliRun stale = CliRun.of(args(localize(oneLine(fence(guide, "<!-- deployment: remove", "bash")), ports, dir)
        .replace(",d=127.0.0.1:" + ports[3], "").replace("--node d", "--node c")));
    assertEquals(1, stale.code(), stale.out() + stale.err());
    assertTrue(stale.err().contains("agreed members") && stale.err().contains("d=127.0.0.1:" + ports[3]), stale.err());
    CliRun remove = CliRun.of(args(localize(oneLine(fence(guide, "<!-- deployment: remove", "bash")), ports, dir)));
    assertEquals(0, remove.code(), remove.out() + remove.err());
    assertTrue(remove.out().contains("database shop: removed d"), remove.out());
    Process d = running.remove("d");
    d.destroy();
    assertTrue(d.waitFor(60, TimeUnit.SECONDS), "node d ended after SIGTERM");
    CliRun three = awaitHealthy(statusArgs);
    assertEquals(3, three.out().lines().filter(l -> l.contains(" LEADER ") || l.contains(" FOLLOWER ")).count(), three.out());
  }

  /** Until the status command shows {@code replica} has applied {@code index}: a follower applies after the majority acknowledged. */
  private static void awaitApplied(String[] statusArgs, String replica, long index) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    CliRun last = null;
    while (System.nanoTime() < deadline) {
      last = CliRun.of(statusArgs);
      for (String line : last.out().lines().toList()) {
        String[] columns = line.trim().split("\\s+");
        if (columns.length == 9 && columns[0].equals(replica) && columns[6].matches("\\d+") && Long.parseLong(columns[6]) >= index) {
          return;
        }
      }
      Thread.sleep(200); // the replica applies on its own schedule
    }
    throw new AssertionError("replica " + replica + " did not apply index " + index + " within " + WAIT + ": " + last.out() + last.err());
  }

  /** A command of the guide for one machine: addresses to loopback with the test's ports, absolute paths under {@code machine}. */
  private static String localize(String command, int[] ports, Path machine) {
    String local = command;
    for (int i = 0; i < ports.length; i++) {
      local = local.replace("10.0.0." + (i + 1) + ":7001", "127.0.0.1:" + ports[i]);
    }
    return local.replace("/var/lib/", machine + "/var/lib/").replace("/etc/", machine + "/etc/");
  }

  private static String[] args(String command) {
    assertTrue(command.startsWith("./commitlane "), command);
    return command.substring("./commitlane ".length()).trim().split("\\s+");
  }

  /** A node as {@code ./commitlane} runs it: a JVM of its own with this class path. */
  private Process startNode(String node, Path machine, String command) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
        "-cp", System.getProperty("java.class.path"), Main.class.getName()));
    cmd.addAll(Arrays.asList(args(command)));
    return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(machine.resolve("node-" + System.nanoTime() + ".out").toFile())
        .start();
  }

  /** Until the node's output (its latest run) shows {@code line}. */
  private void awaitLine(String node, String line) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      Path latest;
      try (var files = Files.list(dir.resolve(node))) {
        latest = files.filter(f -> f.getFileName().toString().startsWith("node-")).max(Path::compareTo).orElse(null);
      }
      String out = latest == null ? "" : Files.readString(latest);
      if (out.contains(line)) {
        return;
      }
      if (!running.get(node).isAlive()) {
        throw new AssertionError("node " + node + " ended: " + out);
      }
      Thread.sleep(100); // a process of its own: its output is the only signal
    }
    throw new AssertionError("node " + node + " did not print '" + line + "' within " + WAIT);
  }

  /** Until the status command exits 0: the group elects its leader on its own timers. */
  private static CliRun awaitHealthy(String[] statusArgs) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    CliRun last = null;
    while (System.nanoTime() < deadline) {
      last = CliRun.of(statusArgs);
      if (last.code() == 0) {
        return last;
      }
      Thread.sleep(200); // an election, a node catching up
    }
    throw new AssertionError("the group was not healthy within " + WAIT + ": " + last.out() + last.err());
  }

  @FunctionalInterface
  private interface Snippet {
    void run() throws Exception;
  }

  private static String captured(Snippet snippet) throws Exception {
    PrintStream original = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, UTF_8));
    try {
      snippet.run();
    } finally {
      System.setOut(original);
    }
    return out.toString(UTF_8);
  }

  /** The body of the first {@code ```lang} fence after {@code marker}. */
  private static String fence(String markdown, String marker, String lang) {
    int at = markdown.indexOf(marker);
    assertTrue(at >= 0, "no " + marker + " in the guide");
    int open = markdown.indexOf("```" + lang + "\n", at);
    assertTrue(open >= 0, "no ```" + lang + " fence after " + marker);
    int start = open + 3 + lang.length() + 1;
    return markdown.substring(start, markdown.indexOf("\n```", start));
  }

  private static String oneLine(String fence) {
    List<String> lines = fence.lines().filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
    assertEquals(1, lines.size(), "one command: " + fence);
    return lines.get(0).trim();
  }

  /** The path the settings fence names in its first line ({@code # /etc/...}). */
  private static String firstLineComment(String fence) {
    String first = fence.lines().findFirst().orElse("");
    assertTrue(first.startsWith("# /"), "the settings fence names its file first: " + first);
    return first.substring(2).trim();
  }

  /** The guide's java fence after {@code <!-- docs: NAME} is this test's snippet NAME, de-indented. */
  private static void assertShown(String guide, Path source, String name) throws IOException {
    String shown = fence(guide, "<!-- docs: " + name, "java");
    String code = Files.readString(source);
    int from = code.indexOf("// docs: " + name + "\n");
    int to = code.indexOf("// end docs: " + name, from);
    List<String> lines = code.substring(code.indexOf('\n', from) + 1, to).lines().toList();
    int indent = lines.stream().filter(l -> !l.isBlank()).mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
    String snippet = String.join("\n", lines.stream().map(l -> l.length() >= indent ? l.substring(indent) : l.strip()).toList()).stripTrailing();
    assertEquals(snippet, shown.stripTrailing(), "docs/deployment.md shows the client snippet this test runs");
  }
}
