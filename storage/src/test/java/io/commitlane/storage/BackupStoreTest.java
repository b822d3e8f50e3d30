package io.commitlane.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.commitlane.storage.internal.backup.BackupManifest;
import io.commitlane.storage.internal.backup.SideFiles;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Backups of a storage-only database: create, list, verify, restore, delete, purge, and every refusal. */
class BackupStoreTest {
  @TempDir Path dir;

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String s(byte[] v) {
    return v == null ? null : new String(v, StandardCharsets.UTF_8);
  }

  private Database open(Path p) {
    return Database.open(p, DatabaseOptions.defaults().withWal(false));
  }

  @Test
  void aBackupRestoresToTheStateItWasTakenAtAndTheSecondCopiesAlmostNothing() throws Exception {
    BackupStore store = BackupStore.at(dir.resolve("backups"));
    BackupInfo first;
    BackupInfo second;
    List<String> phases = new ArrayList<>();
    try (Database db = open(dir.resolve("db"))) {
      Store users = db.store("users");
      for (int i = 0; i < 200; i++) {
        db.put(b("k" + i), new byte[1000]);
        db.put(users, b("u" + i), b("v" + i));
      }
      first = store.create(db, (phase, done, total) -> phases.add(phase), () -> false);
      db.put(b("after"), b("x"));
      db.remove(b("k1"));
      second = store.create(db);
    }
    assertTrue(phases.containsAll(List.of("rocksdb", "logs", "checksums")), phases.toString());
    assertEquals(List.of(first.id(), second.id()), store.list().stream().map(BackupInfo::id).toList());
    assertTrue(store.list().stream().allMatch(BackupInfo::complete));
    assertEquals(first, store.verify(first.id(), true));
    store.restore(first.id(), dir.resolve("r1"), RestoreOptions.defaults());
    try (Database r = open(dir.resolve("r1"))) {
      assertNull(r.get(b("after")));
      assertEquals(1000, r.get(b("k1")).length);
      assertEquals("v7", s(r.get(r.store("users"), b("u7"))));
    }
    store.restore(second.id(), dir.resolve("r2"), RestoreOptions.defaults());
    try (Database r = open(dir.resolve("r2"))) {
      assertEquals("x", s(r.get(b("after"))));
      assertNull(r.get(b("k1")));
    }
  }

  @Test
  void verifyNamesAFlippedByteInATableFileAMetadataFileOrTheManifestAndRestoreRefusesIt() throws Exception {
    BackupStore store = BackupStore.at(dir.resolve("backups"));
    BackupInfo info;
    try (Database db = open(dir.resolve("db"))) {
      for (int i = 0; i < 100; i++) {
        db.put(b("k" + i), b("v" + i));
      }
      info = store.create(db);
    }
    Path sst;
    try (var files = Files.list(dir.resolve("backups").resolve("shared_checksum"))) {
      sst = files.filter(p -> p.toString().endsWith(".sst")).findFirst().orElseThrow();
    }
    Path metadata = dir.resolve("backups/commitlane/" + info.id() + "/backup.properties");
    for (Path damaged : List.of(sst, metadata, dir.resolve("backups/commitlane/" + info.id() + "/MANIFEST.sha256"))) {
      flipByte(damaged, 5);
      BackupCorruptException e = assertThrows(BackupCorruptException.class, () -> store.verify(info.id(), false));
      assertEquals(dir.resolve("backups").relativize(damaged), e.file(), e.getMessage());
      assertThrows(BackupCorruptException.class, () -> store.restore(info.id(), dir.resolve("r"), RestoreOptions.defaults()));
      assertFalse(Files.exists(dir.resolve("r")), "nothing restored");
      flipByte(damaged, 5);
      store.verify(info.id(), false);
    }
  }

  @Test
  void restoreRefusesAnOpenTargetANonEmptyOneAndAnotherDatabaseAndKeepsForeignFiles() throws Exception {
    BackupStore store = BackupStore.at(dir.resolve("backups"));
    BackupInfo info;
    try (Database db = open(dir.resolve("db"))) {
      db.put(b("a"), b("1"));
      info = store.create(db);
    }
    try (Database other = open(dir.resolve("other"))) {
      other.put(b("a"), b("other"));
      BackupRefusedException open = assertThrows(BackupRefusedException.class,
          () -> store.restore(info.id(), dir.resolve("other"), RestoreOptions.defaults()));
      assertEquals(BackupRefusedException.Reason.IN_USE, open.reason());
    }
    Files.writeString(dir.resolve("other").resolve("notes.txt"), "mine");
    BackupRefusedException e = assertThrows(BackupRefusedException.class,
        () -> store.restore(info.id(), dir.resolve("other"), RestoreOptions.defaults()));
    assertTrue(e.getMessage().contains("not empty"), e.getMessage());
    assertEquals(BackupRefusedException.Reason.INVALID_PATH, e.reason());
    assertFalse(e.isRetryable());
    e = assertThrows(BackupRefusedException.class,
        () -> store.restore(info.id(), dir.resolve("other"), RestoreOptions.defaults().replacingExisting()));
    assertTrue(e.getMessage().contains("another database"), e.getMessage());
    store.restore(info.id(), dir.resolve("other"), RestoreOptions.defaults().replacingExisting().allowingOtherDatabase());
    assertEquals("mine", Files.readString(dir.resolve("other").resolve("notes.txt")));
    try (Database r = open(dir.resolve("other"))) {
      assertEquals("1", s(r.get(b("a"))));
    }
    // the source itself, replaced by its own backup, needs no permission beyond replacing
    store.restore(info.id(), dir.resolve("db"), RestoreOptions.defaults().replacingExisting());
  }

  @Test
  void deleteAndPurgeKeepWhatOtherBackupsShare() throws Exception {
    BackupStore store = BackupStore.at(dir.resolve("backups"));
    try (Database db = open(dir.resolve("db"))) {
      for (int i = 0; i < 4; i++) {
        db.put(b("k" + i), b("v" + i));
        store.create(db);
      }
    }
    store.delete(1);
    assertEquals(BackupRefusedException.Reason.NO_SUCH_BACKUP, assertThrows(BackupRefusedException.class, () -> store.delete(1)).reason());
    assertEquals(List.of(2), store.purge(2));
    assertEquals(List.of(3, 4), store.list().stream().map(BackupInfo::id).toList());
    store.verify(3, true);
    store.restore(4, dir.resolve("r"), RestoreOptions.defaults());
    try (Database r = open(dir.resolve("r"))) {
      assertEquals("v0", s(r.get(b("k0"))));
      assertEquals("v3", s(r.get(b("k3"))));
    }
  }

  @Test
  void oneWriterAtATimeAndCancellationLeavesNothing() throws Exception {
    BackupStore store = BackupStore.at(dir.resolve("backups"));
    try (Database db = open(dir.resolve("db"))) {
      db.put(b("a"), b("1"));
      store.create(db);
      AtomicInteger asked = new AtomicInteger();
      assertThrows(BackupCancelledException.class, () -> store.create(db, BackupProgress.NONE, () -> asked.incrementAndGet() > 1));
      assertEquals(List.of(1), store.list().stream().map(BackupInfo::id).toList());
      try (AutoCloseable lock = store.layout().lock()) {
        BackupRefusedException e = assertThrows(BackupRefusedException.class, () -> store.create(db));
        assertTrue(e.getMessage().contains("another backup"), e.getMessage());
        assertEquals(BackupRefusedException.Reason.IN_USE, e.reason());
        assertTrue(e.isRetryable(), "the same backup may succeed once the other writer is done");
      }
      db.put(b("b"), b("2")); // still writable
    }
    store.verify(1, false);
  }

  @Test
  void pathsThatLeaveTheBackupDirectoryAreRefused() throws Exception {
    BackupStore store = BackupStore.at(dir.resolve("backups"));
    BackupInfo info;
    try (Database db = open(dir.resolve("db"))) {
      db.put(b("a"), b("1"));
      info = store.create(db);
      assertEquals(BackupRefusedException.Reason.INVALID_PATH, assertThrows(BackupRefusedException.class,
          () -> BackupStore.at(dir.resolve("db").resolve("inside")).create(db)).reason());
    }
    Path outside = Files.writeString(dir.resolve("secret"), "x");
    for (String bad : List.of("../secret", "commitlane/link")) {
      Files.deleteIfExists(dir.resolve("backups/commitlane/link"));
      Files.createSymbolicLink(dir.resolve("backups/commitlane/link"), outside);
      List<BackupManifest.Entry> entries = new ArrayList<>(BackupManifest.read(store.layout(), info.id()));
      entries.add(new BackupManifest.Entry(BackupManifest.sha256(outside), 1, bad));
      BackupManifest.write(dir.resolve("backups/commitlane/" + info.id() + "/MANIFEST.sha256"), entries);
      BackupCorruptException e = assertThrows(BackupCorruptException.class, () -> store.verify(info.id(), false));
      assertTrue(e.getMessage().contains("outside the backup directory"), e.getMessage());
    }
    Files.createSymbolicLink(dir.resolve("link-to-backups"), dir.resolve("backups"));
    assertThrows(BackupRefusedException.class, () -> BackupStore.at(dir.resolve("link-to-backups")));
  }

  /**
   * The space estimate lists the live database directory, then reads each file's size: a table
   * file a compaction removed in between, or a log segment a purge removed, counts nothing.
   */
  @Test
  void theSpaceEstimateCountsNothingForAFileRemovedAfterItWasListed() throws Exception {
    Path db = Files.createDirectories(dir.resolve("live"));
    Files.write(db.resolve("000007.sst"), new byte[100]);
    List<Path> listed = List.of(db.resolve("000007.sst"), db.resolve("000008.sst"));
    assertEquals(100, BackupCreation.estimateNewBytes(listed, dir.resolve("backups")));
    Path log = Files.createDirectories(db.resolve("txlog/orders"));
    Files.write(log.resolve("00000000000000000001.txlog"), new byte[10]);
    assertEquals(10, SideFiles.treeSize(db.resolve("txlog")));
  }

  /**
   * One directory inside the other is refused however the paths are spelled: a parent that is a
   * symbolic link leads into the database, the backup directory or the restore target all the same.
   */
  @Test
  void aDirectoryInsideTheOtherThroughASymbolicLinkIsRefused() throws Exception {
    Path db = dir.resolve("db");
    Path realParent = Files.createDirectories(dir.resolve("real"));
    Files.createSymbolicLink(dir.resolve("to-db"), db);
    Files.createSymbolicLink(dir.resolve("to-real"), realParent);
    BackupStore backups = BackupStore.at(realParent.resolve("backups"));
    BackupInfo info;
    try (Database d = open(db)) {
      d.put(b("a"), b("1"));
      // the backup directory inside the database, through a linked parent
      BackupRefusedException e = assertThrows(BackupRefusedException.class, () -> BackupStore.at(dir.resolve("to-db/backups")).create(d));
      assertEquals(BackupRefusedException.Reason.INVALID_PATH, e.reason());
      assertFalse(Files.exists(db.resolve("backups")), "nothing written into the database");
      // a checkpoint into the database, through a linked parent
      assertThrows(CheckpointRefusedException.class, () -> d.checkpoint(dir.resolve("to-db/copy")));
      assertFalse(Files.exists(db.resolve("copy")), "nothing written into the database");
      info = backups.create(d);
    }
    // the database inside the backup directory, which is named through a linked parent
    Path outer = Files.createDirectories(realParent.resolve("outer"));
    try (Database inner = open(outer.resolve("db"))) {
      inner.put(b("a"), b("1"));
      BackupRefusedException e = assertThrows(BackupRefusedException.class, () -> BackupStore.at(dir.resolve("to-real/outer")).create(inner));
      assertEquals(BackupRefusedException.Reason.INVALID_PATH, e.reason());
    }
    // a restore into the backup directory, or into a directory holding it, through a linked parent
    Files.createSymbolicLink(dir.resolve("to-backups"), realParent.resolve("backups"));
    Files.createSymbolicLink(dir.resolve("to-dir"), dir);
    for (Path target : List.of(dir.resolve("to-backups/restored"), dir.resolve("to-dir/real"))) {
      BackupRefusedException e = assertThrows(BackupRefusedException.class,
          () -> backups.restore(info.id(), target, RestoreOptions.defaults().replacingExisting()), target.toString());
      assertEquals(BackupRefusedException.Reason.INVALID_PATH, e.reason(), e.getMessage());
    }
    assertFalse(Files.exists(realParent.resolve("backups/restored")), "nothing restored into the backup directory");
    try (var entries = Files.list(realParent)) {
      assertEquals(List.of("backups", "outer"), entries.map(p -> p.getFileName().toString()).sorted().toList());
    }
    backups.verify(info.id(), false);
  }

  /**
   * A full disk during a backup fails it with a typed error, keeps earlier backups verifiable and
   * leaves the database writable. On a real tmpfs (skipped where mounting is not allowed).
   */
  @Test
  void aFullDiskFailsTheBackupTypedAndLeavesTheDatabaseWritable() throws Exception {
    Path mount = Files.createDirectories(dir.resolve("small-disk"));
    assumeTrue(DurabilityContractTest.mountTmpfs(mount, "8m"), "cannot mount a tmpfs here");
    try (Database db = open(dir.resolve("db"))) {
      BackupStore store = BackupStore.at(mount.resolve("backups"));
      db.put(b("a"), b("1"));
      BackupInfo first = store.create(db);
      java.util.Random random = new java.util.Random(7);
      for (int i = 0; i < 48; i++) {
        byte[] v = new byte[64 << 10];
        random.nextBytes(v); // incompressible: 3 MiB on disk
        db.put(b("big" + i), v);
      }
      db.flush();
      Path filler = mount.resolve("filler");
      // Too little space for the estimate: refused before anything is written.
      fillLeaving(filler, 1 << 20);
      BackupRefusedException refused = assertThrows(BackupRefusedException.class, () -> store.create(db));
      assertTrue(refused.getMessage().contains("not enough free space"), refused.getMessage());
      assertEquals(BackupRefusedException.Reason.NOT_ENOUGH_SPACE, refused.reason());
      assertTrue(refused.isOutOfSpace());
      Files.delete(filler);
      // The disk fills up once the copy has started (the first progress report): the copy fails.
      BackupException e = assertThrows(BackupException.class, () -> store.create(db, (phase, done, total) -> {
        if (phase.equals("rocksdb") && done == 0) {
          try {
            fillLeaving(filler, 64 << 10);
          } catch (IOException io) {
            throw new java.io.UncheckedIOException(io);
          }
        }
      }, () -> false));
      assertFalse(e instanceof BackupRefusedException, e.getMessage());
      assertTrue(e.isOutOfSpace(), e::toString);
      assertTrue(e.getMessage().contains("space"), e.getMessage());
      db.put(b("still"), b("writable"));
      Files.delete(filler);
      store.verify(first.id(), false);
      assertEquals(List.of(first.id()), store.list().stream().filter(BackupInfo::complete).map(BackupInfo::id).toList());
      assertTrue(store.create(db).complete(), "the failed backup was removed; the next one works");
    } finally {
      DurabilityContractTest.unmount(mount);
    }
  }

  private static void fillLeaving(Path file, long leave) throws IOException {
    long free = Files.getFileStore(file.getParent()).getUsableSpace();
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ch.write(java.nio.ByteBuffer.wrap(new byte[(int) Math.max(0, free - leave)]));
    }
  }

  static void flipByte(Path file, long at) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      java.nio.ByteBuffer one = java.nio.ByteBuffer.allocate(1);
      ch.read(one, at);
      one.put(0, (byte) (one.get(0) ^ 0x40)).rewind();
      ch.write(one, at);
    }
  }
}
