package io.commitlane.storage;

import io.commitlane.storage.internal.rocks.NativeCallbacks;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * Opening a path's RocksDB for {@link SharedDatabase}: the stores (column families) it has and
 * is asked for, the options a commitlane database runs with, and the open itself. What it builds
 * is closed again when the open fails; once it returns, {@link SharedDatabase} owns all of it.
 */
final class NativeOpen {
  static {
    RocksDB.loadLibrary();
  }

  private NativeOpen() {}

  /** An open RocksDB and the native objects that must outlive it (closed after it, in {@link SharedDatabase#closeNative}). */
  record Handles(RocksDB db, DBOptions dbOptions, StoreOptions storeOptions, FlushEvents flushEvents,
      BackgroundErrors backgroundErrors, RocksProperties properties, List<ColumnFamilyDescriptor> descriptors,
      List<ColumnFamilyHandle> handles) {}

  /** {@code readOnly}: RocksDB's {@code openReadOnly}, with the stores that exist and no others. */
  static Handles open(Path path, DatabaseOptions options, CommitlaneSettings settings, boolean readOnly) {
    Set<String> names = storeNames(path, options, readOnly);
    RocksDbWal wal = settings.rocksDbWal();
    wal.checkCompatible(options.walEnabled());
    FlushEvents flushEvents = new FlushEvents();
    BackgroundErrors backgroundErrors = new BackgroundErrors(path.toString(), java.time.Clock.systemUTC());
    DBOptions dbOptions = new DBOptions()
        .setCreateIfMissing(options.createIfMissing() && !readOnly)
        .setCreateMissingColumnFamilies(true)
        // With the WAL off, stores (column families) would otherwise flush independently, and a
        // flush event of one would claim the others' data durable: the transaction log's replay
        // start would skip unflushed writes. Atomic flush cuts every store at the same sequence.
        // RocksDB forbids it with pipelined writes, which RocksDbWal allows only with the WAL on
        // (RocksDB then recovers unflushed data from its own WAL, and StoreFlushCut reports a
        // flush only as far as every store is flushed).
        .setAtomicFlush(!wal.pipelinedWrite())
        .setManualWalFlush(wal.manualFlush())
        .setUnorderedWrite(wal.unorderedWrite())
        .setEnablePipelinedWrite(wal.pipelinedWrite())
        .setTwoWriteQueues(wal.twoWriteQueues())
        .setListeners(List.of(flushEvents, backgroundErrors));
    RocksProperties properties = new RocksProperties(true); // tickers only: no cost this machine could measure (docs/observability.md)
    properties.configure(dbOptions);
    StoreOptions storeOptions = new StoreOptions(settings.rocksDbTuning());
    storeOptions.apply(dbOptions);
    List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
    for (String name : names) {
      descriptors.add(new ColumnFamilyDescriptor(name.getBytes(StandardCharsets.UTF_8), storeOptions.forStore(name)));
    }
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    try {
      RocksDB db = readOnly ? RocksDB.openReadOnly(dbOptions, path.toString(), descriptors, handles)
          : RocksDB.open(dbOptions, path.toString(), descriptors, handles);
      return new Handles(db, dbOptions, storeOptions, flushEvents, backgroundErrors, properties, descriptors, handles);
    } catch (RocksDBException e) {
      dbOptions.close();
      storeOptions.close();
      flushEvents.close();
      backgroundErrors.close();
      properties.close();
      if (DatabaseDirectory.isLockHeld(e)) {
        throw new PathInUseException("database " + path + " is open in another process (it holds RocksDB's LOCK file);"
            + " close it there first, or open it read-only");
      }
      throw new StorageException("cannot open database " + path, e);
    }
  }

  /**
   * The default and internal stores, those the directory has, and (unless read-only) those the
   * options ask for; refuses a directory that is not a commitlane database.
   */
  private static Set<String> storeNames(Path path, DatabaseOptions options, boolean readOnly) {
    Set<String> names = new LinkedHashSet<>();
    names.add(Store.DEFAULT);
    names.add(Store.INTERNAL);
    List<String> existingStores = new ArrayList<>();
    try (Options probe = new Options()) {
      for (byte[] existing : RocksDB.listColumnFamilies(probe, path.toString())) {
        existingStores.add(new String(existing, StandardCharsets.UTF_8));
      }
    } catch (RocksDBException e) {
      throw new StorageException("cannot list the stores of " + path, e);
    }
    DatabaseDirectory.requireOurs(path, existingStores);
    NativeCallbacks.warnOnceIfUnreachable();
    names.addAll(existingStores);
    for (String store : readOnly ? List.<String>of() : options.stores()) {
      names.add(StoreNames.requireValid(store));
    }
    return names;
  }
}
