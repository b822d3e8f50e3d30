package io.commitlane.storage;

import io.commitlane.storage.BackupRefusedException.Reason;
import io.commitlane.storage.internal.backup.BackupLayout;
import io.commitlane.storage.internal.backup.BackupManifest;
import io.commitlane.storage.internal.backup.BackupMetadata;
import io.commitlane.storage.internal.backup.SideFiles;
import io.commitlane.storage.internal.files.RealPaths;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.rocksdb.BackupEngine;
import org.rocksdb.RocksDBException;

/**
 * Takes one backup, in the order that keeps it consistent: the logs are held ({@link LogCapture}),
 * RocksDB's {@code BackupEngine} flushes and copies the files no earlier backup has, then the logs
 * and store-drop records are copied into {@code commitlane/<id>.tmp/}, the metadata and checksum
 * manifest written, and the directory renamed to {@code commitlane/<id>/}: a backup without it is
 * incomplete (a crash or failure before the rename) and is removed by the next writer.
 */
final class BackupCreation {
  private BackupCreation() {}

  static BackupInfo run(BackupStore store, Database db, BackupProgress progress, BooleanSupplier cancelled) {
    BackupLayout layout = store.layout();
    SharedDatabase shared = db.shared();
    shared.requireWritable("back up (a read-only handle cannot flush, so the backup could miss data)");
    Path source = shared.path();
    if (RealPaths.overlap(layout.root, source)) {
      throw new BackupRefusedException(Reason.INVALID_PATH, "cannot back up " + source + " into " + layout.root
          + ": one is inside the other; choose a backup directory outside the database");
    }
    db.enter();
    try (AutoCloseable lock = layout.lock(); BackupEngine engine = store.engine()) {
      store.removeIncomplete(engine);
      String identity = BackupLayout.identity(source);
      int nextId = BackupCatalog.highestRocksDbId(engine) + 1;
      for (BackupInfo earlier : store.list(engine)) {
        if (earlier.complete() && earlier.sourceIdentity() != null && !earlier.sourceIdentity().equals(identity)) {
          throw new BackupRefusedException(Reason.INVALID_PATH, layout.root + " holds backups of another database ("
              + earlier.sourcePath() + ", identity " + earlier.sourceIdentity() + "); give each database its own backup directory");
        }
        if (earlier.id() >= nextId) {
          // RocksDB lost its description, so it would give the new backup this id: keep the damage visible instead
          throw new BackupCorruptException(earlier.id(), layout.root.relativize(layout.backup(earlier.id())),
              "has no RocksDB backup (meta/" + earlier.id() + " is missing), and a new backup would take its id",
              "delete it (BackupStore.delete(" + earlier.id() + "), ./commitlane backup delete --id " + earlier.id()
              + ") and back up again");
        }
      }
      long estimate = estimateNewBytes(source, layout.root);
      long free = Files.getFileStore(layout.ours()).getUsableSpace();
      if (free < estimate) {
        throw new BackupRefusedException(Reason.NOT_ENOUGH_SPACE, "not enough free space for a backup of " + source + " in "
            + layout.root + ": it needs about " + estimate + " bytes and " + free + " are free; free space or purge old backups");
      }
      checkCancelled(cancelled, "before it started");
      return take(store, engine, shared, identity, estimate, progress, cancelled);
    } catch (RocksDBException e) {
      throw new BackupException("RocksDB could not back up " + source + " into " + layout.root + ": " + e.getMessage()
          + "; check the space and permissions there and try again (earlier backups are untouched)", e);
    } catch (IOException | UncheckedIOException e) {
      throw new BackupException("backing up " + source + " into " + layout.root + " failed: " + e
          + "; check the space and permissions there and try again (earlier backups are untouched)", e);
    } catch (BackupException | DatabaseClosedException e) {
      throw e;
    } catch (Exception e) {
      throw new BackupException("backing up " + source + " failed: " + e, e);
    } finally {
      db.exit();
    }
  }

  private static BackupInfo take(BackupStore store, BackupEngine engine, SharedDatabase shared, String identity,
      long estimate, BackupProgress progress, BooleanSupplier cancelled) throws RocksDBException, IOException {
    BackupLayout layout = store.layout();
    LogCapture capture = shared.hooks().logCapture();
    int id = -1;
    boolean done = false;
    try (LogCapture.Hold hold = capture != null ? capture.hold() : new Checkpoints.FileCopyHold(shared.path())) {
      progress.progress("rocksdb", 0, estimate);
      long sequence = shared.latestSequenceNumber();
      Instant createdAt = Instant.now();
      engine.createNewBackupWithMetadata(shared.rocks(), "commitlane", true);
      id = newestId(engine);
      progress.progress("rocksdb", estimate, estimate);
      checkCancelled(cancelled, "after RocksDB's files were copied");
      if (Files.exists(layout.backup(id), LinkOption.NOFOLLOW_LINKS)) {
        throw new BackupException("RocksDB gave the new backup id " + id + ", which " + layout.backup(id)
            + " already holds; nothing of the new backup is kept: list the backups in " + layout.root + " and delete the damaged one");
      }
      Path staging = layout.staging(id);
      SideFiles.deleteTree(staging);
      Files.createDirectories(staging);
      progress.progress("logs", 0, 0);
      List<CapturedLog> logs = hold.copyTo(staging.resolve(SideFiles.TXLOG), store.newestComplete(engine, id));
      hold.close(); // the data and logs are captured: let flushed positions move again
      long logBytes = SideFiles.copyDropRecords(shared.path(), staging);
      for (CapturedLog l : logs) {
        logBytes += l.bytes();
      }
      progress.progress("logs", logBytes, logBytes);
      long rocksBytes = 0;
      for (org.rocksdb.BackupInfo b : engine.getBackupInfo()) {
        rocksBytes = b.backupId() == id ? b.size() : rocksBytes;
      }
      BackupInfo info = new BackupInfo(id, createdAt, sequence, rocksBytes + logBytes, BackupMetadata.FORMAT_VERSION,
          identity, shared.path().toString(), logs, true);
      BackupMetadata.write(staging.resolve(BackupLayout.METADATA), info);
      writeManifest(layout, id, staging, progress, cancelled);
      SideFiles.syncDirectory(staging);
      Files.move(staging, layout.backup(id), StandardCopyOption.ATOMIC_MOVE);
      SideFiles.syncDirectory(layout.ours());
      done = true;
      return info;
    } finally {
      if (!done && id > 0) {
        SideFiles.deleteTree(layout.staging(id));
        try {
          engine.deleteBackup(id);
        } catch (RocksDBException e) {
          // the next writer removes it as incomplete
        }
      }
    }
  }

  /** Every file of the backup, RocksDB's and ours (staged), into {@code MANIFEST.sha256}. */
  private static void writeManifest(BackupLayout layout, int id, Path staging, BackupProgress progress,
      BooleanSupplier cancelled) throws IOException {
    List<String> files = new ArrayList<>(BackupManifest.rocksDbFiles(layout, id));
    String finalPrefix = BackupLayout.OURS + "/" + id + "/";
    Map<String, Path> staged = new HashMap<>();
    try (var walk = Files.walk(staging)) {
      for (Path p : walk.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)).sorted().toList()) {
        String rel = finalPrefix + staging.relativize(p).toString().replace('\\', '/');
        staged.put(rel, p);
        files.add(rel);
      }
    }
    long total = 0;
    for (String f : files) {
      Path p = staged.getOrDefault(f, layout.root.resolve(f));
      total += Files.exists(p) ? Files.size(p) : 0;
    }
    List<BackupManifest.Entry> entries = BackupManifest.hash(layout, id, files,
        f -> staged.getOrDefault(f, layout.root.resolve(f)), progress, total, new long[1], cancelled);
    BackupManifest.write(staging.resolve(BackupLayout.MANIFEST), entries);
  }

  /**
   * About how many bytes the backup will add: the database's files that no earlier backup shares
   * (same file number and size in {@code shared_checksum/}), plus its logs. The database is live:
   * a file listed may be gone when its size is read.
   */
  static long estimateNewBytes(Path db, Path backupRoot) throws IOException {
    return estimateNewBytes(SideFiles.entries(db), backupRoot) + SideFiles.treeSize(db.resolve(SideFiles.TXLOG));
  }

  /** The files of {@code dbFiles} that no earlier backup shares, listed a moment ago from the live database directory. */
  static long estimateNewBytes(List<Path> dbFiles, Path backupRoot) throws IOException {
    Map<String, List<Long>> shared = new HashMap<>();
    Path sharedDir = backupRoot.resolve("shared_checksum");
    if (Files.isDirectory(sharedDir)) {
      for (Path f : SideFiles.entries(sharedDir)) {
        String name = f.getFileName().toString();
        int cut = name.indexOf('_');
        if (cut > 0) {
          shared.computeIfAbsent(name.substring(0, cut), k -> new ArrayList<>()).add(Files.size(f));
        }
      }
    }
    long total = 0;
    for (Path f : dbFiles) {
      BasicFileAttributes attributes;
      try {
        attributes = Files.readAttributes(f, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS); // one look: it may go any time
      } catch (NoSuchFileException e) {
        continue; // a compaction or a flush removed it: RocksDB's backup does not copy it either
      }
      if (!attributes.isRegularFile()) {
        continue;
      }
      String name = f.getFileName().toString();
      long size = attributes.size();
      int dot = name.indexOf('.');
      String number = dot > 0 ? name.substring(0, dot) : name;
      boolean table = name.endsWith(".sst") || name.endsWith(".blob");
      if (!table || !shared.getOrDefault(number, List.of()).contains(size)) {
        total += size;
      }
    }
    return total;
  }

  private static int newestId(BackupEngine engine) {
    int id = -1;
    for (org.rocksdb.BackupInfo b : engine.getBackupInfo()) {
      id = Math.max(id, b.backupId());
    }
    return id;
  }

  private static void checkCancelled(BooleanSupplier cancelled, String when) {
    if (cancelled.getAsBoolean()) {
      throw new BackupCancelledException("the backup was cancelled " + when + "; nothing of it is kept");
    }
  }
}
