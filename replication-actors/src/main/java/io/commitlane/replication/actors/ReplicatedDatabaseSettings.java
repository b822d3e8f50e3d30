package io.commitlane.replication.actors;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import io.commitlane.replication.ReadConsistency;
import io.commitlane.replication.ReplicaPeer;
import io.commitlane.replication.ReplicationGroup;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * A {@code replicated { ... }} settings block: the group, and whether this node hosts a replica of
 * it (and where) or holds only a client. The one reader of that block, shared by {@link
 * ConfiguredDatabaseActor} and the persistence plugins' replicated configuration.
 *
 * <pre>{@code
 * replicated {
 *   database = orders               # the replicated database's name
 *   voters = ["n1=10.0.0.1:7001", "n2=10.0.0.2:7001", "n3=10.0.0.3:7001"]
 *   listeners = []
 *   node = client                   # client: no replica here; or this node's id to host one
 *   directory = "data/replica"      # node = an id: this node's replica directory
 *   reads = linearizable            # or local (needs a replica on this node)
 *   max-page-bytes = 4 MiB
 * }
 * }</pre>
 *
 * @param group the group's name and members
 * @param node {@link #CLIENT}, or the id of this node's replica (a voter or a listener)
 * @param directory this node's replica directory; null for a client
 * @param actor the database actor's read settings
 */
public record ReplicatedDatabaseSettings(ReplicationGroup group, String node, Path directory, ReplicatedActorSettings actor) {
  /** The {@code node} of a process that holds no replica. */
  public static final String CLIENT = "client";
  private static final Set<String> KEYS = Set.of("database", "voters", "listeners", "node", "directory", "reads", "max-page-bytes");

  /** Whether this node hosts a replica (else it is a client). */
  public boolean hostsReplica() {
    return !CLIENT.equals(node);
  }

  /** This node's member of the group, when it hosts a replica. */
  public Optional<ReplicaPeer> self() {
    List<ReplicaPeer> all = new ArrayList<>(group.voters());
    all.addAll(group.listeners());
    return all.stream().filter(p -> p.id().equals(node)).findFirst();
  }

  /**
   * Reads the block {@code r}, whose path in the config is {@code at} (errors name keys under it).
   *
   * @throws InvalidSettingsException naming every key that is missing, unknown or out of range
   */
  public static ReplicatedDatabaseSettings read(Config r, String at) {
    List<SettingError> errors = new ArrayList<>();
    ReplicatedDatabaseSettings s = read(r, at, errors);
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(errors);
    }
    return s;
  }

  /** Reads the block, adding what is wrong to {@code errors}; the result is meaningful only when none was added. */
  static ReplicatedDatabaseSettings read(Config r, String at, List<SettingError> errors) {
    int before = errors.size();
    unknown(r, KEYS, at, errors);
    String database = get(errors, at + ".database", () -> r.getString("database"));
    List<ReplicaPeer> voters = peers(errors, r, at, "voters");
    List<ReplicaPeer> listeners = r.hasPath("listeners") ? peers(errors, r, at, "listeners") : List.of();
    String node = r.hasPath("node") ? get(errors, at + ".node", () -> r.getString("node")) : CLIENT;
    Path directory = null;
    if (node != null && !node.equals(CLIENT)) {
      boolean member = voters.stream().anyMatch(p -> p.id().equals(node)) || listeners.stream().anyMatch(p -> p.id().equals(node));
      if (!member) {
        errors.add(new SettingError(at + ".node", node, "client, or the id of one of the voters or listeners"));
      }
      String dir = get(errors, at + ".directory", () -> r.getString("directory"));
      directory = dir == null ? null : Path.of(dir);
    }
    ReadConsistency reads = ReadConsistency.LINEARIZABLE;
    if (r.hasPath("reads")) {
      String value = get(errors, at + ".reads", () -> r.getString("reads"));
      try {
        reads = value == null ? reads : ReadConsistency.valueOf(value.toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        errors.add(new SettingError(at + ".reads", value, "linearizable or local"));
      }
    }
    Long pageBytes = r.hasPath("max-page-bytes") ? get(errors, at + ".max-page-bytes", () -> r.getBytes("max-page-bytes"))
        : Long.valueOf(ReplicatedActorSettings.defaults().maxPageBytes());
    ReplicatedActorSettings actor = null;
    if (pageBytes != null) {
      try {
        actor = new ReplicatedActorSettings(reads, (int) Math.min(Integer.MAX_VALUE, pageBytes));
      } catch (InvalidSettingsException e) {
        errors.add(new SettingError(at + ".max-page-bytes", pageBytes, "1 KiB..64 MiB"));
      }
    }
    ReplicationGroup group = null;
    if (errors.size() == before) {
      try {
        group = new ReplicationGroup(database, voters, listeners);
      } catch (InvalidSettingsException e) {
        e.errors().forEach(x -> errors.add(new SettingError(at + "." + x.field(), x.value(), x.allowed())));
      } catch (RuntimeException e) {
        errors.add(new SettingError(at, database, e.getMessage()));
      }
    }
    return new ReplicatedDatabaseSettings(group, node, directory, actor);
  }

  /** {@code id=host:port} entries, as {@code ./commitlane replica} takes them. */
  private static List<ReplicaPeer> peers(List<SettingError> errors, Config r, String at, String key) {
    List<String> specs = get(errors, at + "." + key, () -> r.getStringList(key));
    List<ReplicaPeer> peers = new ArrayList<>();
    if (specs == null) {
      return peers;
    }
    for (String spec : specs) {
      int eq = spec.indexOf('=');
      int colon = spec.lastIndexOf(':');
      try {
        if (eq < 1 || colon < eq + 2) {
          throw new IllegalArgumentException();
        }
        peers.add(new ReplicaPeer(spec.substring(0, eq), spec.substring(eq + 1, colon), Integer.parseInt(spec.substring(colon + 1))));
      } catch (IllegalArgumentException e) { // a bad port, or InvalidSettingsException of the peer
        errors.add(new SettingError(at + "." + key, spec, "id=host:port, for example n1=10.0.0.1:7001"));
      }
    }
    return peers;
  }

  /** Adds an error for each key of {@code c} that is not one of {@code keys}. */
  static void unknown(Config c, Set<String> keys, String at, List<SettingError> errors) {
    for (String key : c.root().keySet()) {
      if (!keys.contains(key)) {
        errors.add(new SettingError(at + "." + key, c.getValue(key).unwrapped(), "not a setting; the settings are "
            + keys.stream().sorted().toList()));
      }
    }
  }

  /** {@code value}, or null with an error naming {@code key} when the configuration cannot give it. */
  static <T> T get(List<SettingError> errors, String key, Supplier<T> value) {
    try {
      return value.get();
    } catch (ConfigException e) {
      errors.add(new SettingError(key, null, e.getMessage()));
      return null;
    }
  }
}
