package io.commitlane.bench.harness;

import io.commitlane.bench.cli.Checks;
import io.commitlane.bench.cli.PipelineOverrides;
import io.commitlane.bench.peers.RawOptimisticAsyncPeer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * One contestant of {@code compare}: a way of committing (the pipeline's {@code commit(txn)} in a
 * mode, {@code commitSync} on the callers' threads, blocking {@code commitSync} tasks on the
 * default dispatcher ({@code legacy}), or a peer outside commitlane) plus any
 * commitlane settings it overrides. Written on the command line as a name with optional settings
 * in brackets, separated by semicolons: {@code threads}, {@code legacy},
 * {@code threads[occ-validation=serial;commit-threads=1]}, {@code optimistic}, {@code optimistic-async}, {@code lmdb}.
 */
public record Variant(String spec, Kind kind, PipelineOverrides overrides) {
  /** How a variant commits. */
  public enum Kind {
    /** {@code CommitlaneDatabase.commit(txn)} from plain threads, each keeping --concurrency commits in flight. */
    PIPELINE("commitlane"),
    /** {@code CommitlaneDatabase.commitSync(txn)} on each worker thread. */
    COMMIT_SYNC("commitlane commitSync"),
    /**
     * Blocking commits as a peer: {@code CommitlaneDatabase.commitSync(txn)} as tasks on the actor
     * system's default dispatcher, --concurrency in flight per worker; each holds a dispatcher thread
     * for the whole commit.
     */
    LEGACY("commitlane legacy"),
    /** rocksdbjni {@code OptimisticTransactionDB}, one transaction per commit, from plain threads. */
    RAW_OPTIMISTIC("raw OptimisticTransactionDB"),
    /**
     * rocksdbjni {@code OptimisticTransactionDB}, transactions built on the workers and committed on a
     * pool of {@code commit-threads} threads, {@code --concurrency} in flight per worker ({@link RawOptimisticAsyncPeer}).
     */
    RAW_OPTIMISTIC_ASYNC("raw OptimisticTransactionDB async"),
    /** rocksdbjni {@code db.write(WriteBatch)}: no validation, the ceiling. */
    RAW_WRITE("raw db.write(WriteBatch)"),
    /** LMDB (lmdbjava), one write transaction per commit. */
    LMDB("lmdbjava");

    public final String label;

    Kind(String label) {
      this.label = label;
    }

    public boolean isCommitlane() {
      return this == PIPELINE || this == COMMIT_SYNC || this == LEGACY;
    }
  }

  public static final String KNOWN = "threads, two-lane, leaderless, actor (pipeline modes), commit-sync, legacy (blocking commitSync tasks on the"
      + " default dispatcher), optimistic,"
      + " optimistic-async (raw commits on a pool of commit-threads threads, --concurrency in flight per worker), write-batch, lmdb;"
      + " commitlane variants take settings in brackets: threads[occ-validation=serial;commit-threads=1]";

  /** Parses one {@code --variants} entry; unknown names and malformed settings are usage errors naming the flag. */
  public static Variant parse(String flag, String spec) {
    String s = spec.trim();
    String name = s;
    List<String> settings = new ArrayList<>();
    int open = s.indexOf('[');
    if (open >= 0) {
      if (!s.endsWith("]")) {
        throw Checks.usage(flag + ": '" + spec + "' has an unclosed '['");
      }
      name = s.substring(0, open).trim();
      for (String a : s.substring(open + 1, s.length() - 1).split(";")) {
        if (!a.isBlank()) {
          settings.add(a.trim());
        }
      }
    }
    name = name.toLowerCase(Locale.ROOT);
    String where = flag + " " + s;
    PipelineOverrides o = PipelineOverrides.none();
    Kind kind;
    if (PipelineOverrides.isModeName(name)) { // every mode of this build's PipelineMode: a new one is a variant with no change here
      kind = Kind.PIPELINE;
      o = o.mode(where, name);
    } else {
      kind = switch (name) {
        case "commit-sync", "commitsync" -> Kind.COMMIT_SYNC;
        case "legacy" -> Kind.LEGACY;
        case "optimistic", "raw-optimistic" -> Kind.RAW_OPTIMISTIC;
        case "optimistic-async", "raw-optimistic-async" -> Kind.RAW_OPTIMISTIC_ASYNC;
        case "write-batch", "raw-write" -> Kind.RAW_WRITE;
        case "lmdb" -> Kind.LMDB;
        default -> throw Checks.usage(flag + ": unknown variant '" + spec + "'; known: " + String.join(", ", PipelineOverrides.pipelineModes())
            + ", leaderless, actor (pipeline modes of this build), commit-sync, legacy, optimistic, optimistic-async, write-batch, lmdb");
      };
    }
    if (!settings.isEmpty() && !kind.isCommitlane()) {
      throw Checks.usage(flag + ": '" + spec + "' is a peer outside commitlane; settings in brackets apply to commitlane variants only");
    }
    for (String a : settings) {
      o = o.assignment(where, a);
    }
    return new Variant(s, kind, o);
  }

  /** What the tables and charts call it: "commitlane threads", "commitlane threads [occ-validation=serial]". */
  public String label() {
    String base = switch (kind) {
      case PIPELINE -> "commitlane " + (spec.contains("[") ? spec.substring(0, spec.indexOf('[')) : spec);
      default -> kind.label;
    };
    var extra = overrides.asMap().entrySet().stream()
        .filter(e -> !(e.getKey().equals("mode") || e.getKey().equals("txlog.append") && kind == Kind.PIPELINE
            && (spec.startsWith("leaderless") || spec.startsWith("actor"))))
        .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(", "));
    return extra.isEmpty() ? base : base + " [" + extra + "]";
  }
}
