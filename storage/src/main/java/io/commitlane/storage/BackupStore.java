package io.commitlane.storage;

import io.commitlane.storage.BackupRefusedException.Reason;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import org.rocksdb.BackupEngine;
import org.rocksdb.BackupEngineOptions;
import org.rocksdb.Env;
import org.rocksdb.RocksDBException;

/**
 * A directory of backups of one database, taken online on RocksDB's {@code BackupEngine}:
 * incremental (a table file is stored once and shared by every backup that holds it),
 * checksummed, each with its transaction logs and store-drop records, a metadata file and a
 * SHA-256 manifest of every file it consists of. One writer at a time ({@code commitlane/LOCK});
 * every call blocks its caller ({@code CommitlaneDatabase.backup} runs on the lifecycle
 * dispatcher). See docs/operations.md.
 *
 * <pre>{@code
 * BackupStore backups = BackupStore.at(Path.of("/backups/orders"));
 * BackupInfo b = backups.create(db);                  // online: commits go on
 * backups.verify(b.id(), false);                      // every file against its SHA-256
 * backups.restore(b.id(), Path.of("/data/orders-restored"), RestoreOptions.defaults());
 * backups.purge(7);                                   // keep the newest seven
 * }</pre>
 */
public final class BackupStore {
  static {
    org.rocksdb.RocksDB.loadLibrary();
  }

  private final BackupLayout layout;

  private BackupStore(BackupLayout layout) {
    this.layout = layout;
  }

  /**
   * The backup directory {@code directory} (created by the first backup). Refused with {@link
   * BackupRefusedException} if it is a symbolic link or a file.
   */
  public static BackupStore at(Path directory) {
    return new BackupStore(BackupLayout.of(Objects.requireNonNull(directory, "directory")));
  }

  public Path directory() {
    return layout.root;
  }

  /** {@link #create(Database, BackupProgress, BooleanSupplier)} without progress or cancellation. */
  public BackupInfo create(Database db) {
    return create(db, BackupProgress.NONE, () -> false);
  }

  /**
   * Back up {@code db} while commits go on. The backup holds a prefix of commit order containing
   * every commit acknowledged before this call (restored and opened, its logs replay what they hold
   * beyond the data). {@code cancelled} is asked between steps (RocksDB's own copy cannot be
   * interrupted): once it says true the backup stops, removes what it wrote and throws {@link
   * BackupCancelledException}.
   *
   * @throws BackupRefusedException another writer holds the directory, too little free space, the
   *     directory holds backups of another database, or one directory is inside the other
   * @throws BackupException the copy failed (a full disk): nothing of it is kept, the database is unharmed
   */
  public BackupInfo create(Database db, BackupProgress progress, BooleanSupplier cancelled) {
    Objects.requireNonNull(db, "db");
    return BackupCreation.run(this, db, Objects.requireNonNull(progress, "progress"), Objects.requireNonNull(cancelled, "cancelled"));
  }

  /** Every backup, oldest first; incomplete ones (interrupted) have {@code complete() == false}. */
  public List<BackupInfo> list() {
    if (!Files.isDirectory(layout.root.resolve("meta"))) {
      return List.of();
    }
    try (BackupEngine engine = engine()) {
      return list(engine);
    } catch (RocksDBException e) {
      throw new BackupException("cannot read the backups in " + layout.root + ": " + e.getMessage(), e);
    }
  }

  /**
   * Checks every file of backup {@code id} against its recorded size and SHA-256 (RocksDB's files,
   * the logs, the metadata and the manifest itself). {@code deep}: also restores it into a
   * temporary directory inside the backup directory and reads every key of every store there with
   * RocksDB's block checksums on. Returns the backup's description.
   *
   * @throws BackupCorruptException naming the first file that does not match
   */
  public BackupInfo verify(int id, boolean deep) {
    return verify(id, deep, BackupProgress.NONE);
  }

  public BackupInfo verify(int id, boolean deep, BackupProgress progress) {
    return BackupVerifier.verify(this, id, deep, Objects.requireNonNull(progress, "progress"));
  }

  /**
   * Restore backup {@code id} into {@code target}, after verifying it. Refused (nothing changed)
   * while a database at {@code target} is open here or in another process, onto a non-empty
   * directory unless {@link RestoreOptions#replaceExisting()}, and onto another database than the
   * one the backup was taken of unless {@link RestoreOptions#allowOtherDatabase()}. Replacing
   * deletes only the database's own files ({@link Database#destroy}); yours stay. Open the
   * result as usual: it replays what its logs hold beyond the data.
   */
  public void restore(int id, Path target, RestoreOptions options) {
    restore(id, target, options, BackupProgress.NONE);
  }

  public void restore(int id, Path target, RestoreOptions options, BackupProgress progress) {
    BackupRestore.run(this, id, Objects.requireNonNull(target, "target"), Objects.requireNonNull(options, "options"),
        Objects.requireNonNull(progress, "progress"));
  }

  /** Delete backup {@code id}; files other backups share stay. */
  public void delete(int id) {
    try (AutoCloseable lock = layout.lock(); BackupEngine engine = engine()) {
      if (list(engine).stream().noneMatch(b -> b.id() == id)) {
        throw new BackupRefusedException(Reason.NO_SUCH_BACKUP, "there is no backup " + id + " in " + layout.root
            + "; list them to see which there are");
      }
      deleteOne(engine, id);
    } catch (BackupException e) {
      throw e;
    } catch (Exception e) {
      throw new BackupException("cannot delete backup " + id + " in " + layout.root + ": " + e, e);
    }
  }

  /** Delete every backup but the newest {@code keepLast} complete ones, and every incomplete one; returns the ids deleted. */
  public List<Integer> purge(int keepLast) {
    if (keepLast < 0) {
      throw new IllegalArgumentException("keepLast must be >= 0: " + keepLast);
    }
    List<Integer> deleted = new ArrayList<>();
    try (AutoCloseable lock = layout.lock(); BackupEngine engine = engine()) {
      deleted.addAll(removeIncomplete(engine));
      List<BackupInfo> complete = new ArrayList<>(list(engine).stream().filter(BackupInfo::complete).toList());
      complete.sort(Comparator.comparingInt(BackupInfo::id));
      for (int i = 0; i < complete.size() - keepLast; i++) {
        deleteOne(engine, complete.get(i).id());
        deleted.add(complete.get(i).id());
      }
      return deleted;
    } catch (BackupException e) {
      throw e;
    } catch (Exception e) {
      throw new BackupException("cannot purge backups in " + layout.root + ": " + e, e);
    }
  }

  // ---------------------------------------------------------------- for the backup classes

  BackupLayout layout() {
    return layout;
  }

  BackupEngine engine() throws RocksDBException {
    try {
      Files.createDirectories(layout.root);
    } catch (IOException e) {
      throw new BackupException("cannot create backup directory " + layout.root + ": " + e, e);
    }
    BackupEngineOptions options = new BackupEngineOptions(layout.root.toString()).setShareFilesWithChecksum(true).setSync(true);
    try {
      return BackupEngine.open(Env.getDefault(), options);
    } finally {
      options.close();
    }
  }

  List<BackupInfo> list(BackupEngine engine) {
    List<BackupInfo> out = new ArrayList<>();
    for (org.rocksdb.BackupInfo b : engine.getBackupInfo()) {
      Path meta = layout.backup(b.backupId()).resolve(BackupLayout.METADATA);
      BackupInfo info = null;
      if (Files.isRegularFile(meta, LinkOption.NOFOLLOW_LINKS)) {
        try {
          info = BackupMetadata.read(meta, true);
        } catch (IOException | RuntimeException e) {
          info = null; // verify names the damage; list still shows the backup
        }
      }
      out.add(info != null ? info : new BackupInfo(b.backupId(), Instant.ofEpochSecond(b.timestamp()), -1, b.size(),
          0, null, "", List.of(), false));
    }
    out.sort(Comparator.comparingInt(BackupInfo::id));
    return out;
  }

  /** The {@code txlog} directory of the newest complete backup before {@code id}, whose sealed segments a new one may share; or null. */
  Path newestComplete(BackupEngine engine, int id) {
    BackupInfo newest = null;
    for (BackupInfo b : list(engine)) {
      if (b.complete() && b.id() < id && (newest == null || b.id() > newest.id())) {
        newest = b;
      }
    }
    return newest == null ? null : layout.backup(newest.id()).resolve(SideFiles.TXLOG);
  }

  /** Under the lock: removes RocksDB backups that have no commitlane directory and staging left by a crash. */
  List<Integer> removeIncomplete(BackupEngine engine) throws RocksDBException, IOException {
    List<Integer> removed = new ArrayList<>();
    for (org.rocksdb.BackupInfo b : engine.getBackupInfo()) {
      if (!Files.isDirectory(layout.backup(b.backupId()), LinkOption.NOFOLLOW_LINKS)) {
        engine.deleteBackup(b.backupId());
        removed.add(b.backupId());
      }
    }
    if (Files.isDirectory(layout.ours())) {
      for (Path p : SideFiles.entries(layout.ours())) {
        String name = p.getFileName().toString();
        boolean staging = name.endsWith(".tmp") || name.startsWith("verify-");
        if (staging || (BackupLayout.isId(name) && engine.getBackupInfo().stream().noneMatch(b -> name.equals(Integer.toString(b.backupId()))))) {
          SideFiles.deleteTree(p);
        }
      }
    }
    engine.garbageCollect();
    return removed;
  }

  private void deleteOne(BackupEngine engine, int id) throws RocksDBException {
    // Ours first: a crash in between leaves a RocksDB backup without it, which counts as incomplete.
    SideFiles.deleteTree(layout.backup(id));
    engine.deleteBackup(id);
  }
}
