package io.commitlane.bench.persistence;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.bench.cli.Checks;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * One journal in the persistence benchmark: its plugin configuration on a fresh directory (or database), the
 * durability it is configured for, and whether that durability survives a kill -9 (measured: H2 at its default
 * WRITE_DELAY lost acknowledged events at a kill; the others lost none).
 */
enum PersistencePeer {
  COMMITLANE("commitlane", "process: the transaction log is written before the ack (RocksDB WAL off)", true, true),
  COMMITLANE_FSYNC("commitlane-fsync", "fsync: the transaction log is synced before the ack (RocksDB WAL off)", true, true),
  LEVELDB("leveldb", "Pekko's LevelDB journal as configured by default (native = off, fsync = on)", true, false),
  H2("h2", "pekko-persistence-jdbc 1.1.1 on H2 2.5 (file), WRITE_DELAY=0: each commit written before the ack", true, true),
  H2_DEFAULT("h2-default", "pekko-persistence-jdbc on H2 at its default WRITE_DELAY (500 ms): does NOT survive a kill -9", false, true),
  POSTGRES("postgres", "pekko-persistence-jdbc on a local PostgreSQL server, synchronous_commit = on (its default): WAL flushed"
      + " before the ack", true, true),
  COMMITLANE_REPLICATED("commitlane-replicated", "the plugins on a replicated database: three voters on loopback, all in this JVM"
      + " (entities on n1, a follower: n2 and n3, two more actor systems, elect the leader before n1 starts, so every write goes"
      + " to a leader on another node): acknowledged once a majority's Raft logs hold it (synced)", true, true);

  final String id;
  final String durability;
  final boolean survivesKill;
  final boolean hasDurableState;

  PersistencePeer(String id, String durability, boolean survivesKill, boolean hasDurableState) {
    this.id = id;
    this.durability = durability;
    this.survivesKill = survivesKill;
    this.hasDurableState = hasDurableState;
  }

  static PersistencePeer of(String id) {
    for (PersistencePeer p : values()) {
      if (p.id.equals(id)) {
        return p;
      }
    }
    throw Checks.usage("--peers: " + id + " is not a peer; known: " + ids());
  }

  static List<String> ids() {
    return java.util.Arrays.stream(values()).map(p -> p.id).toList();
  }

  boolean isJdbc() {
    return this == H2 || this == H2_DEFAULT || this == POSTGRES;
  }

  /** The read journal's plugin id. */
  String readJournal() {
    return switch (this) {
      case COMMITLANE, COMMITLANE_FSYNC, COMMITLANE_REPLICATED -> "commitlane-persistence.query";
      case LEVELDB -> "pekko.persistence.query.journal.leveldb";
      default -> "jdbc-read-journal";
    };
  }

  /**
   * The actor system's config for a measurement in {@code dir}; {@code jdbcUrl} is the PostgreSQL database's (null
   * for the other peers). Creates the JDBC schema first. The replicated peer's config is its n1's
   * ({@link PersistenceReplicaHosts#config()}).
   */
  Config config(Path dir, String jdbcUrl) throws IOException, SQLException {
    String plugins = switch (this) {
      case COMMITLANE_REPLICATED -> throw new IllegalStateException("the replicated peer's config is its replica hosts' n1");
      case COMMITLANE, COMMITLANE_FSYNC -> """
          pekko.persistence.journal.plugin = "commitlane-persistence.journal"
          pekko.persistence.snapshot-store.plugin = "commitlane-persistence.snapshot-store"
          pekko.persistence.state.plugin = "commitlane-persistence.state"
          commitlane-persistence { path = "%s", durability = %s }
          """.formatted(escape(dir.resolve("db")), this == COMMITLANE ? "process" : "fsync");
      case LEVELDB -> """
          pekko.persistence.journal.plugin = "pekko.persistence.journal.leveldb"
          pekko.persistence.journal.leveldb { dir = "%s", native = off }
          pekko.persistence.snapshot-store.plugin = "pekko.persistence.snapshot-store.local"
          pekko.persistence.snapshot-store.local.dir = "%s"
          """.formatted(escape(dir.resolve("journal")), escape(dir.resolve("snapshots")));
      default -> jdbc(dir, jdbcUrl);
    };
    return ConfigFactory.parseString(plugins + "\npekko.loglevel = WARNING\npekko.log-dead-letters = off\n")
        .withFallback(ConfigFactory.load()).resolve();
  }

  private String jdbc(Path dir, String postgresUrl) throws IOException, SQLException {
    String url;
    String profile;
    String driver;
    String schema;
    String user;
    if (this == POSTGRES) {
      url = postgresUrl;
      profile = "slick.jdbc.PostgresProfile$";
      driver = "org.postgresql.Driver";
      schema = "schema/postgres/postgres-create-schema.sql";
      user = "bench";
    } else {
      url = "jdbc:h2:file:" + dir.resolve("h2") + (this == H2 ? ";WRITE_DELAY=0" : "");
      profile = "slick.jdbc.H2Profile$";
      driver = "org.h2.Driver";
      schema = "schema/h2/h2-create-schema.sql";
      user = "sa";
    }
    createSchema(url, user, schema);
    return """
        pekko.persistence.journal.plugin = "jdbc-journal"
        pekko.persistence.snapshot-store.plugin = "jdbc-snapshot-store"
        pekko.persistence.state.plugin = "jdbc-durable-state-store"
        pekko-persistence-jdbc.shared-databases.slick {
          profile = "%s"
          db { url = "%s", user = "%s", password = "", driver = "%s", numThreads = 8, maxConnections = 8, minConnections = 1 }
        }
        jdbc-journal.use-shared-db = "slick"
        jdbc-snapshot-store.use-shared-db = "slick"
        jdbc-read-journal.use-shared-db = "slick"
        jdbc-durable-state-store.use-shared-db = "slick"
        """.formatted(profile, url.replace("\\", "\\\\"), user, driver);
  }

  /** Runs the plugin's own schema file (fresh database: it is not re-runnable on H2). */
  private static void createSchema(String url, String user, String resource) throws IOException, SQLException {
    String sql;
    try (InputStream in = PersistencePeer.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IOException("pekko-persistence-jdbc's " + resource + " is not on the class path");
      }
      sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    try (Connection c = DriverManager.getConnection(url, user, ""); Statement s = c.createStatement()) {
      for (String statement : sql.split(";")) {
        if (!statement.isBlank()) {
          s.execute(statement);
        }
      }
    }
  }

  private static String escape(Path p) {
    return p.toString().replace("\\", "\\\\");
  }
}
