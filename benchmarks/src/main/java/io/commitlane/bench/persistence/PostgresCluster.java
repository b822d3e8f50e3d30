package io.commitlane.bench.persistence;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL cluster of the benchmark's own, in a directory of its own, on a free loopback port, started with
 * Debian's {@code initdb}/{@code pg_ctl} and stopped after the run. Its settings are PostgreSQL's defaults (so
 * {@code synchronous_commit = on}: a commit returns once its WAL is flushed). Run as user {@code postgres} when the
 * benchmark runs as root (PostgreSQL refuses root).
 */
final class PostgresCluster implements AutoCloseable {
  private static final List<Path> BIN_DIRS = List.of(Path.of("/usr/lib/postgresql/17/bin"), Path.of("/usr/lib/postgresql/16/bin"),
      Path.of("/usr/lib/postgresql/15/bin"), Path.of("/usr/lib/postgresql/14/bin"), Path.of("/usr/bin"));

  final int port;
  private final Path bin;
  private final Path data;
  private final boolean asPostgres;
  private int databases;

  private PostgresCluster(Path bin, Path data, int port, boolean asPostgres) {
    this.bin = bin;
    this.data = data;
    this.port = port;
    this.asPostgres = asPostgres;
  }

  /** Where initdb and pg_ctl are, or null (then the PostgreSQL peer is reported as not run, and why). */
  static Path binaries() {
    for (Path d : BIN_DIRS) {
      if (Files.isExecutable(d.resolve("initdb")) && Files.isExecutable(d.resolve("pg_ctl"))) {
        return d;
      }
    }
    return null;
  }

  static PostgresCluster start(Path bin, Path dir) throws IOException, InterruptedException {
    boolean root = "root".equals(System.getProperty("user.name"));
    Path data = Files.createDirectories(dir).resolve("data");
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    PostgresCluster c = new PostgresCluster(bin, data, port, root);
    if (root) {
      run(List.of("chown", "-R", "postgres:postgres", dir.toString()));
      dir.toFile().setExecutable(true, false);
      for (Path p = dir.getParent(); p != null; p = p.getParent()) {
        p.toFile().setExecutable(true, false); // postgres must reach its directory
      }
    }
    c.pg(List.of(bin.resolve("initdb").toString(), "-D", data.toString(), "-A", "trust", "-U", "bench", "--no-sync"));
    c.pg(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-w", "-l", dir.resolve("log").toString(), "-o",
        "-p " + port + " -c listen_addresses=127.0.0.1 -k " + dir, "start"));
    return c;
  }

  /** A new, empty database; its JDBC URL. */
  String newDatabase() throws SQLException {
    String name = "bench" + (++databases);
    try (Connection c = DriverManager.getConnection(url("postgres"), "bench", ""); Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    }
    return url(name);
  }

  String url(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
  }

  private void pg(List<String> command) throws IOException, InterruptedException {
    List<String> c = new ArrayList<>();
    if (asPostgres) {
      c.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    c.addAll(command);
    run(c);
  }

  private static void run(List<String> command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException(String.join(" ", command) + " failed: " + out);
    }
  }

  @Override
  public void close() throws IOException, InterruptedException {
    pg(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-m", "fast", "-w", "stop"));
  }
}
