package io.commitlane.storage;

import io.commitlane.storage.BackupRefusedException.Reason;
import io.commitlane.storage.internal.backup.BackupLayout;
import io.commitlane.storage.internal.backup.SideFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;
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
   *     directory holds backups of another database, or one directory is inside the other (where
   *     the paths really lead: a parent that is a symbolic link counts)
   * @throws BackupCorruptException the newest backup lost RocksDB's description of it, so the new
   *     backup would take its id: delete it first
   * @throws BackupException the copy failed (a full disk): nothing of it is kept, the database is unharmed
   */
  public BackupInfo create(Database db, BackupProgress progress, BooleanSupplier cancelled) {
    Objects.requireNonNull(db, "db");
    return BackupCreation.run(this, db, Objects.requireNonNull(progress, "progress"), Objects.requireNonNull(cancelled, "cancelled"));
  }

  /**
   * Every backup, oldest first, with its {@link BackupInfo#state()}: complete, incomplete
   * (interrupted: the next create or purge removes it) or damaged (a part of it is missing or
   * unreadable: it stays, listed, until {@link #delete} removes it). Cheap checks only; {@link
   * #verify} reads every byte.
   */
  public List<BackupInfo> list() {
    if (!Files.isDirectory(layout.root.resolve("meta")) && !Files.isDirectory(layout.ours())) {
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
   * the logs, the metadata and the manifest itself), and that the backup's own directories hold
   * no file its manifest does not list. {@code deep}: also restores it into a temporary directory
   * inside the backup directory and reads every key of every store there with RocksDB's block
   * checksums on. Returns the backup's description.
   *
   * @throws BackupCorruptException naming the first file that is missing, unreadable, changed,
   *     unlisted, or named by a path that leads outside the backup directory
   */
  public BackupInfo verify(int id, boolean deep) {
    return verify(id, deep, BackupProgress.NONE);
  }

  public BackupInfo verify(int id, boolean deep, BackupProgress progress) {
    return BackupVerifier.verify(this, id, deep, Objects.requireNonNull(progress, "progress"));
  }

  /**
   * Restore backup {@code id} into {@code target}, after verifying it (a damaged backup is refused
   * with {@link BackupCorruptException}); only the files its manifest lists are copied. Refused (nothing changed)
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

  /** Delete backup {@code id}, whatever its state; files other backups share stay. */
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

  /**
   * Delete every backup but the newest {@code keepLast} complete ones, and every incomplete one;
   * returns the ids deleted. Damaged backups stay (delete them one by one once you have looked).
   */
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
    try {
      return BackupCatalog.list(layout, engine);
    } catch (IOException e) {
      throw new BackupException("cannot read the backups in " + layout.root + ": " + e, e);
    }
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

  /**
   * Under the lock: removes incomplete backups (RocksDB's part without commitlane's) and the
   * staging a crash left. Damaged backups stay.
   */
  List<Integer> removeIncomplete(BackupEngine engine) throws RocksDBException, IOException {
    List<Integer> removed = new ArrayList<>();
    for (BackupInfo b : list(engine)) {
      if (b.state() == BackupInfo.State.INCOMPLETE) {
        engine.deleteBackup(b.id());
        removed.add(b.id());
      }
    }
    if (Files.isDirectory(layout.ours(), LinkOption.NOFOLLOW_LINKS)) {
      for (Path p : SideFiles.entries(layout.ours())) {
        String name = p.getFileName().toString();
        if (name.endsWith(".tmp") || name.startsWith("verify-")) {
          SideFiles.deleteTree(p);
        }
      }
    }
    engine.garbageCollect();
    return removed;
  }

  /**
   * Ours first, out of the way in one rename: a crash after it leaves RocksDB's part alone, which
   * counts as incomplete; RocksDB's part may be missing or refused already (a damaged backup).
   */
  private void deleteOne(BackupEngine engine, int id) throws RocksDBException, IOException {
    Path ours = layout.backup(id);
    if (Files.exists(ours, LinkOption.NOFOLLOW_LINKS)) {
      Path doomed = layout.ours().resolve("deleting-" + id + ".tmp");
      SideFiles.deleteTree(doomed);
      Files.move(ours, doomed, StandardCopyOption.ATOMIC_MOVE);
      SideFiles.syncDirectory(layout.ours());
      SideFiles.deleteTree(doomed);
    }
    boolean known = engine.getBackupInfo().stream().anyMatch(b -> b.backupId() == id)
        || IntStream.of(engine.getCorruptedBackups()).anyMatch(c -> c == id);
    if (known) {
      engine.deleteBackup(id);
    } else {
      engine.garbageCollect(); // what RocksDB kept of it without a description
    }
  }
}
