package io.commitlane.bench.cli;

import io.commitlane.actors.internal.config.PipelineKeys;
import io.commitlane.storage.internal.settings.StorageKeys;
import picocli.CommandLine.Option;

/**
 * The commitlane settings a run may override from the command line, as in the upstream
 * benchmark ({@code --wal}, {@code --durability}, {@code --commit-threads}, {@code --occ-validation},
 * {@code --occ-lock-buckets}) plus {@code --write-groups}. Unset flags keep the build's defaults
 * (reference.conf), except the WAL, which the benchmarks turn off unless asked.
 * {@link PipelineOverrides} turns them into settings.
 */
public final class CommitlaneOptions {
  static { // the flags' help states the settings' ranges from their definitions (picocli reads ${sys:...} when it prints)
    java.util.List.of(PipelineKeys.COMMIT_THREADS, StorageKeys.OCC_LOCK_BUCKETS).forEach(s -> System.setProperty("commitlane-bench.range." + s.key(), s.range()));
  }

  @Option(names = "--wal", arity = "1", description = "RocksDB's write-ahead log, for commitlane and the RocksDB peers: on or off. Default: ${DEFAULT-VALUE}",
      converter = OnOff.class)
  public boolean wal = false;

  @Option(names = "--log", description = "commitlane commits also write the transaction log: one entry (the value) per key. The peers write no log.")
  public boolean log;

  @Option(names = "--durability", description = "commitlane.txlog.durability: none, process or fsync (with --log). Default: the build's (process)")
  String durability;

  @Option(names = "--commit-threads", description = "commitlane.commit-threads: ${sys:commitlane-bench.range.commit-threads} or auto. Default: the build's (auto = min(4, cores))")
  String commitThreads;

  @Option(names = "--occ-validation", description = "commitlane.occ-validation: parallel or serial. Default: the build's (parallel)")
  String occValidation;

  @Option(names = "--occ-lock-buckets", description = "commitlane.occ-lock-buckets: ${sys:commitlane-bench.range.occ-lock-buckets}. Default: the build's (65536)")
  Integer occLockBuckets;

  @Option(names = "--write-groups", arity = "1", converter = OnOff.class,
      description = "commitlane.write-groups.enabled (merged write groups): on or off. Default: the build's (on)")
  Boolean writeGroups;

  /** The overrides these flags ask for. */
  public PipelineOverrides overrides() {
    PipelineOverrides o = PipelineOverrides.none().with("--wal", "wal", wal);
    if (durability != null) {
      o = o.with("--durability", "txlog.durability", durability);
    }
    if (commitThreads != null) {
      o = o.with("--commit-threads", "commit-threads", commitThreads);
    }
    if (occValidation != null) {
      o = o.with("--occ-validation", "occ-validation", occValidation);
    }
    if (occLockBuckets != null) {
      o = o.with("--occ-lock-buckets", "occ-lock-buckets", occLockBuckets);
    }
    if (writeGroups != null) {
      o = o.writeGroups("--write-groups", writeGroups);
    }
    return o;
  }

  /** "on"/"off" (also true/false, yes/no). */
  static final class OnOff implements picocli.CommandLine.ITypeConverter<Boolean> {
    @Override
    public Boolean convert(String value) {
      return switch (value.trim().toLowerCase(java.util.Locale.ROOT)) {
        case "on", "true", "yes" -> true;
        case "off", "false", "no" -> false;
        default -> throw new picocli.CommandLine.TypeConversionException("'" + value + "' is not on or off");
      };
    }
  }
}
