package io.commitlane.storage;

import io.commitlane.storage.internal.backup.BackupLayout;
import io.commitlane.storage.internal.backup.BackupMetadata;
import io.commitlane.storage.internal.backup.SideFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.rocksdb.BackupEngine;

/**
 * Every backup a backup directory holds any part of, and the state of each. A backup has two
 * parts: RocksDB's ({@code meta/<id>} and the files it names) and commitlane's ({@code
 * commitlane/<id>/}). Creation renames commitlane's part into place last and deletion removes it
 * first, so the only partial backup a crash leaves is RocksDB's part alone: that one is {@link
 * BackupInfo.State#INCOMPLETE}, and the next writer removes it. Every other gap is damage, listed
 * until it is deleted: RocksDB's part missing or refused by RocksDB (its description, or a file
 * it names, missing or unreadable), commitlane's part not a directory, its metadata unreadable
 * or its manifest missing. Cheap checks only: {@link BackupVerifier} reads every byte.
 */
final class BackupCatalog {
  private BackupCatalog() {}

  /** The backups in the directory, by id. */
  static List<BackupInfo> list(BackupLayout layout, BackupEngine engine) throws IOException {
    Map<Integer, org.rocksdb.BackupInfo> valid = new TreeMap<>();
    for (org.rocksdb.BackupInfo b : engine.getBackupInfo()) {
      valid.put(b.backupId(), b);
    }
    Set<Integer> refused = IntStream.of(engine.getCorruptedBackups()).boxed().collect(Collectors.toSet());
    Set<Integer> ids = new TreeSet<>(valid.keySet());
    ids.addAll(refused);
    ids.addAll(oursIds(layout));
    return ids.stream().map(id -> describe(layout, id, valid.get(id), refused.contains(id))).toList();
  }

  /** The highest id RocksDB knows of, valid or refused (the next backup takes a higher one); 0 if none. */
  static int highestRocksDbId(BackupEngine engine) {
    int highest = 0;
    for (org.rocksdb.BackupInfo b : engine.getBackupInfo()) {
      highest = Math.max(highest, b.backupId());
    }
    for (int id : engine.getCorruptedBackups()) {
      highest = Math.max(highest, id);
    }
    return highest;
  }

  private static BackupInfo describe(BackupLayout layout, int id, org.rocksdb.BackupInfo rocks, boolean refusedByRocksDb) {
    Path ours = layout.backup(id);
    Instant time = rocks != null ? Instant.ofEpochSecond(rocks.timestamp()) : Instant.EPOCH;
    BackupInfo unknown = new BackupInfo(id, time, -1, rocks != null ? rocks.size() : 0, 0, null, "", List.of(),
        BackupInfo.State.DAMAGED, "");
    if (!Files.exists(ours, LinkOption.NOFOLLOW_LINKS)) {
      return refusedByRocksDb ? unknown.in(BackupInfo.State.DAMAGED, damage(id) + "; and " + relative(layout, ours) + " is missing")
          : unknown.in(BackupInfo.State.INCOMPLETE, "interrupted before " + relative(layout, ours)
              + " was written; the next backup or purge removes it");
    }
    if (!Files.isDirectory(ours, LinkOption.NOFOLLOW_LINKS)) {
      return unknown.in(BackupInfo.State.DAMAGED, relative(layout, ours) + " is not a directory");
    }
    BackupInfo info;
    try {
      info = BackupMetadata.read(layout, id);
    } catch (BackupCorruptException e) {
      return unknown.in(BackupInfo.State.DAMAGED, e.damage());
    }
    if (rocks == null) {
      return info.in(BackupInfo.State.DAMAGED, refusedByRocksDb ? damage(id) : "meta/" + id + " is missing (RocksDB's description of the backup)");
    }
    Path manifest = ours.resolve(BackupLayout.MANIFEST);
    if (!Files.isRegularFile(manifest, LinkOption.NOFOLLOW_LINKS)) {
      return info.in(BackupInfo.State.DAMAGED, relative(layout, manifest) + " is missing");
    }
    return info;
  }

  private static String damage(int id) {
    return "meta/" + id + " is refused by RocksDB's backup engine (it, or a file it names, is missing or damaged;"
        + " verify names the file)";
  }

  private static String relative(BackupLayout layout, Path p) {
    return layout.root.relativize(p).toString();
  }

  /** The ids of commitlane's parts of backups ({@code commitlane/<id>}, whatever kind of file), not staging. */
  private static Set<Integer> oursIds(BackupLayout layout) throws IOException {
    Set<Integer> ids = new TreeSet<>();
    if (Files.isDirectory(layout.ours(), LinkOption.NOFOLLOW_LINKS)) {
      for (Path p : SideFiles.entries(layout.ours())) {
        String name = p.getFileName().toString();
        if (BackupLayout.isId(name) && Long.parseLong(name) <= Integer.MAX_VALUE) {
          ids.add(Integer.parseInt(name));
        }
      }
    }
    return ids;
  }
}
