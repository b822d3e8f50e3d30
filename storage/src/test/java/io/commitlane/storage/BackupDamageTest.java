package io.commitlane.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.internal.backup.BackupManifest;
import io.commitlane.storage.internal.backup.SideFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a damaged backup directory does to list, verify and restore: every damage is listed, fails
 * verification with {@link BackupCorruptException} naming the file, is refused by restore with
 * nothing written, and stays until it is deleted; the other backups keep working.
 */
class BackupDamageTest {
  @TempDir Path dir;

  private Path backups;
  private BackupStore store;

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Two backups of a database with a log (copied as files: nothing writes it here). */
  @BeforeEach
  void twoBackups() throws IOException {
    backups = dir.resolve("backups");
    store = BackupStore.at(backups);
    Path db = dir.resolve("db");
    Path segment = db.resolve("txlog/orders/00000000000000000000.txlog");
    Files.createDirectories(segment.getParent());
    Files.write(segment, b("a log segment, opaque here"));
    try (Database d = Database.open(db, DatabaseOptions.defaults().withWal(false))) {
      d.put(b("a"), b("1"));
      store.create(d);
      d.put(b("b"), b("2"));
      store.create(d);
    }
  }

  private BackupInfo listed(int id) {
    return store.list().stream().filter(b -> b.id() == id).findFirst()
        .orElseThrow(() -> new AssertionError("backup " + id + " is not listed: " + store.list()));
  }

  /** verify and restore name {@code file} as the damage of backup 1, restore writes nothing, backup 2 still works. */
  private void assertDamaged(String file) {
    BackupCorruptException e = assertThrows(BackupCorruptException.class, () -> store.verify(1, false));
    assertEquals(1, e.backupId());
    assertEquals(Path.of(file), e.file(), e.getMessage());
    e = assertThrows(BackupCorruptException.class, () -> store.restore(1, dir.resolve("r"), RestoreOptions.defaults()));
    assertEquals(Path.of(file), e.file(), e.getMessage());
    assertFalse(Files.exists(dir.resolve("r")), "nothing restored");
    store.verify(2, true);
  }

  @ParameterizedTest
  @ValueSource(strings = {"garbage", "truncated", "deleted", "empty", "nul byte"})
  void aBackupWhoseRocksDbDescriptionIsDamagedIsListedDamagedFailsVerifyAndStaysUntilDeleted(String damage) throws Exception {
    Path meta = backups.resolve("meta/1");
    byte[] bytes = Files.readAllBytes(meta);
    switch (damage) {
      case "garbage" -> Files.write(meta, b("not a description of a backup\n"));
      case "truncated" -> Files.write(meta, Arrays.copyOf(bytes, bytes.length / 2));
      case "deleted" -> Files.delete(meta);
      case "empty" -> Files.write(meta, new byte[0]);
      default -> {
        bytes[bytes.length - 10] = 0; // inside the name of a file RocksDB lists
        Files.write(meta, bytes);
      }
    }
    assertEquals(List.of(1, 2), store.list().stream().map(BackupInfo::id).toList());
    BackupInfo one = listed(1);
    assertEquals(BackupInfo.State.DAMAGED, one.state());
    assertFalse(one.complete());
    assertTrue(one.problem().contains("meta/1"), one.problem());
    assertEquals(BackupInfo.State.COMPLETE, listed(2).state());
    assertDamaged("meta/1");

    // The next backup neither removes the damaged one nor trips over it.
    try (Database d = Database.open(dir.resolve("db"))) {
      assertEquals(3, store.create(d).id());
    }
    assertEquals(BackupInfo.State.DAMAGED, listed(1).state());
    assertEquals(List.of(), store.purge(2));
    assertEquals(List.of(1, 2, 3), store.list().stream().map(BackupInfo::id).toList(), "purge keeps a damaged backup");
    store.delete(1);
    assertEquals(List.of(2, 3), store.list().stream().map(BackupInfo::id).toList());
    store.verify(3, true);
  }

  /**
   * Without its description RocksDB would give the newest backup's id to the next one: the next
   * backup is refused, naming the damaged one, until it is deleted. With a damaged description
   * RocksDB still counts the id and the next backup takes a new one.
   */
  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void aDamagedNewestBackupIsNeverOverwrittenByTheNext(boolean descriptionDeleted) throws Exception {
    Path meta = backups.resolve("meta/2");
    if (descriptionDeleted) {
      Files.delete(meta);
    } else {
      Files.write(meta, b("damaged\n"));
    }
    try (Database d = Database.open(dir.resolve("db"))) {
      if (descriptionDeleted) {
        BackupCorruptException e = assertThrows(BackupCorruptException.class, () -> store.create(d));
        assertEquals(2, e.backupId());
        assertTrue(e.getMessage().contains("delete it"), e.getMessage());
        assertEquals(BackupInfo.State.DAMAGED, listed(2).state());
        store.delete(2);
      }
      BackupInfo next = store.create(d);
      assertEquals(descriptionDeleted ? 2 : 3, next.id());
      store.verify(next.id(), true);
    }
    assertEquals(descriptionDeleted ? BackupInfo.State.COMPLETE : BackupInfo.State.DAMAGED, listed(2).state());
    store.verify(1, true);
  }

  @Test
  void aMissingTableFileDamagesEveryBackupThatHoldsIt() throws Exception {
    List<Path> tables;
    try (var files = Files.list(backups.resolve("shared_checksum"))) {
      tables = files.sorted().toList();
    }
    Files.delete(tables.get(0));
    String missing = backups.relativize(tables.get(0)).toString();
    assertEquals(List.of(BackupInfo.State.DAMAGED, BackupInfo.State.DAMAGED), store.list().stream().map(BackupInfo::state).toList(),
        store.list().toString());
    BackupCorruptException e = assertThrows(BackupCorruptException.class, () -> store.verify(1, false));
    assertEquals(Path.of(missing), e.file(), e.getMessage());
    assertTrue(e.getMessage().contains("is missing"), e.getMessage());
    assertThrows(BackupCorruptException.class, () -> store.restore(2, dir.resolve("r"), RestoreOptions.defaults()));
    assertFalse(Files.exists(dir.resolve("r")));
  }

  @Test
  void aBackupWhoseMetadataIsUnreadableIsListedDamagedAndVerifyNamesIt() throws Exception {
    Path metadata = backups.resolve("commitlane/1/backup.properties");
    for (String text : List.of("", "id=1\ncreated-at=yesterday\n", "format-version=\\uZZZZ\n")) {
      Files.writeString(metadata, text);
      rewriteManifest(1, entries -> entries); // a manifest that agrees: only the metadata says what is wrong
      BackupInfo one = listed(1);
      assertEquals(BackupInfo.State.DAMAGED, one.state(), one.toString());
      assertTrue(one.problem().contains("backup.properties"), one.problem());
      BackupCorruptException e = assertThrows(BackupCorruptException.class, () -> store.verify(1, false));
      assertEquals(Path.of("commitlane/1/backup.properties"), e.file(), e.getMessage());
    }
    Files.delete(metadata);
    rewriteManifest(1, entries -> entries.stream().filter(x -> !x.path().endsWith("backup.properties")).toList());
    assertEquals(BackupInfo.State.DAMAGED, listed(1).state());
    assertDamaged("commitlane/1/backup.properties");
  }

  @Test
  void aFileTheManifestDoesNotListFailsVerifyAndIsNeverRestored() throws Exception {
    Path evil = backups.resolve("commitlane/1/txlog/evil/00000000000000000000.txlog");
    Files.createDirectories(evil.getParent());
    Files.copy(backups.resolve("commitlane/1/txlog/orders/00000000000000000000.txlog"), evil);
    BackupCorruptException e = assertThrows(BackupCorruptException.class, () -> store.verify(1, true));
    assertEquals(Path.of("commitlane/1/txlog/evil/00000000000000000000.txlog"), e.file(), e.getMessage());
    assertTrue(e.getMessage().contains("not listed in its manifest"), e.getMessage());
    assertDamaged("commitlane/1/txlog/evil/00000000000000000000.txlog");

    SideFiles.deleteTree(evil.getParent());
    store.verify(1, false);
    Files.writeString(backups.resolve("private/1/extra"), "planted");
    e = assertThrows(BackupCorruptException.class, () -> store.verify(1, false));
    assertEquals(Path.of("private/1/extra"), e.file(), e.getMessage());
  }

  @Test
  void restoreCopiesOnlyTheLogFilesTheManifestLists() throws Exception {
    Path evil = backups.resolve("commitlane/1/txlog/evil/00000000000000000000.txlog");
    Files.createDirectories(evil.getParent());
    Files.writeString(evil, "planted after the backup was verified");
    Path staging = Files.createDirectories(dir.resolve("staging"));
    BackupRestore.copySideFiles(store.layout(), 1, BackupManifest.read(store.layout(), 1), staging);
    assertTrue(Files.isRegularFile(staging.resolve("txlog/orders/00000000000000000000.txlog")));
    assertFalse(Files.exists(staging.resolve("txlog/evil")), "an unlisted log is not restored");
  }

  @ParameterizedTest
  @ValueSource(strings = {"../secret", "commitlane/1/../../../secret", "/etc/passwd", "commitlane/1/a\u0000b", ""})
  void aManifestThatNamesAPathOutsideTheBackupIsDamage(String path) throws Exception {
    Files.writeString(dir.resolve("secret"), "x");
    rewriteManifest(1, entries -> {
      List<BackupManifest.Entry> out = new ArrayList<>(entries);
      out.add(new BackupManifest.Entry("00", 1, path));
      return out;
    });
    BackupCorruptException e = assertThrows(BackupCorruptException.class, () -> store.verify(1, false));
    assertTrue(e.getMessage().contains("outside the backup directory") || e.getMessage().contains("not a path"), e.getMessage());
    assertThrows(BackupCorruptException.class, () -> store.restore(1, dir.resolve("r"), RestoreOptions.defaults()));
    assertFalse(Files.exists(dir.resolve("r")));
  }

  @Test
  void aMissingOrEmptyManifestOrBackupDirectoryIsNamed() throws Exception {
    Path manifest = backups.resolve("commitlane/1/MANIFEST.sha256");
    Files.write(manifest, new byte[0]);
    assertDamaged("commitlane/1/MANIFEST.sha256");
    Files.delete(manifest);
    assertDamaged("commitlane/1/MANIFEST.sha256");
    assertEquals(BackupInfo.State.COMPLETE, listed(2).state());
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void aBackupDirectoryReplacedByAFileOrALinkIsDamagedAndCanBeDeleted(boolean link) throws Exception {
    Path ours = backups.resolve("commitlane/1");
    SideFiles.deleteTree(ours);
    if (link) {
      Files.createSymbolicLink(ours, backups.resolve("commitlane/2")); // a whole other backup, through a link
    } else {
      Files.writeString(ours, "not a directory");
    }
    BackupInfo one = listed(1);
    assertEquals(BackupInfo.State.DAMAGED, one.state());
    assertTrue(one.problem().contains("commitlane/1 is not a directory"), one.problem());
    assertDamaged("commitlane/1");
    store.delete(1);
    assertEquals(List.of(2), store.list().stream().map(BackupInfo::id).toList());
    store.verify(2, true);
  }

  private void rewriteManifest(int id, java.util.function.UnaryOperator<List<BackupManifest.Entry>> change) throws IOException {
    Path file = backups.resolve("commitlane/" + id + "/MANIFEST.sha256");
    List<BackupManifest.Entry> rehashed = new ArrayList<>();
    for (BackupManifest.Entry e : BackupManifest.read(store.layout(), id)) {
      Path p = backups.resolve(e.path());
      rehashed.add(Files.isRegularFile(p) ? new BackupManifest.Entry(BackupManifest.sha256(p), Files.size(p), e.path()) : e);
    }
    BackupManifest.write(file, change.apply(rehashed));
  }
}
