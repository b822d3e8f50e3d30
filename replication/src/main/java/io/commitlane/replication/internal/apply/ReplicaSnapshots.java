package io.commitlane.replication.internal.apply;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.SnapshotRetentionPolicy;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.impl.FileListSnapshotInfo;

/**
 * A replica's snapshots: RocksDB checkpoints in {@code sm/snapshots/snapshot.<term>_<index>}, one
 * directory each. Ratis sends the files of the latest one to a replica that needs entries the
 * leader has purged; the receiver finds them under the same relative names, because Ratis
 * places installed files relative to {@link #getSnapshotDir()}.
 *
 * <p>A directory appears under its final name only once complete (it is written under a
 * temporary name and renamed), so the latest name is always a whole checkpoint.
 */
public final class ReplicaSnapshots implements StateMachineStorage {
  private static final Pattern NAME = Pattern.compile("snapshot\\.(\\d+)_(\\d+)");
  /** What Ratis writes beside each installed file; not part of the checkpoint. */
  static final String DIGEST_SUFFIX = ".md5";

  private volatile File stateMachineDir;

  @Override
  public void init(RaftStorage storage) {
    stateMachineDir = storage.getStorageDir().getStateMachineDir();
  }

  @Override
  public File getSnapshotDir() {
    return new File(stateMachineDir, "snapshots");
  }

  /** Where the replica's database lives, beside its snapshots. */
  Path databaseDir() {
    return stateMachineDir.toPath().resolve("db");
  }

  Path directoryFor(TermIndex ti) {
    return getSnapshotDir().toPath().resolve("snapshot." + ti.getTerm() + "_" + ti.getIndex());
  }

  /** A directory for a checkpoint being written; renamed to {@link #directoryFor} when complete. */
  Path stagingFor(TermIndex ti) {
    return getSnapshotDir().toPath().resolve(".staging." + ti.getTerm() + "_" + ti.getIndex());
  }

  @Override
  public SnapshotInfo getLatestSnapshot() {
    return latest().map(this::describe).orElse(null);
  }

  /** The latest complete snapshot's term and index. */
  Optional<TermIndex> latest() {
    return all().stream().max(Comparator.naturalOrder());
  }

  private List<TermIndex> all() {
    File[] dirs = getSnapshotDir().listFiles(File::isDirectory);
    List<TermIndex> found = new ArrayList<>();
    if (dirs != null) {
      for (File d : dirs) {
        Matcher m = NAME.matcher(d.getName());
        if (m.matches()) {
          found.add(TermIndex.valueOf(Long.parseLong(m.group(1)), Long.parseLong(m.group(2))));
        }
      }
    }
    return found;
  }

  private SnapshotInfo describe(TermIndex ti) {
    Path dir = directoryFor(ti);
    List<FileInfo> files = new ArrayList<>();
    try (Stream<Path> s = Files.walk(dir)) {
      s.filter(Files::isRegularFile)
          .filter(p -> !p.getFileName().toString().endsWith(DIGEST_SUFFIX))
          .forEach(p -> files.add(new FileInfo(p.toAbsolutePath(), null))); // Ratis digests while sending
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list snapshot " + dir, e);
    }
    return new FileListSnapshotInfo(files, ti);
  }

  @Override
  public void format() {
    // A new replica has no snapshots; its directories are made when the first is taken.
  }

  @Override
  public void cleanupOldSnapshots(SnapshotRetentionPolicy policy) throws IOException {
    int keep = Math.max(1, policy.getNumSnapshotsRetained());
    List<TermIndex> old = all();
    old.sort(Comparator.reverseOrder());
    for (TermIndex ti : old.subList(Math.min(keep, old.size()), old.size())) {
      Directories.delete(directoryFor(ti));
    }
  }
}
