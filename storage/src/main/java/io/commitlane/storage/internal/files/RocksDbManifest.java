package io.commitlane.storage.internal.files;

import io.commitlane.storage.NotADatabaseException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;

/**
 * A RocksDB database's own account of its files, read the way RocksDB reads it at open: {@code
 * CURRENT} names the manifest, and the manifest's version edits name every table and blob file the
 * database added and the oldest write-ahead log it would replay. Nothing is opened through RocksDB,
 * so nothing in the directory changes while it is read.
 *
 * <p>Invariant: {@link #read} returns only when {@code CURRENT} names a manifest whose records
 * carry RocksDB's checksums and decode as version edits; anything else is {@link
 * NotADatabaseException}. Both files use RocksDB's log format (32 KiB blocks of records, each a
 * masked CRC-32C, a 2-byte length and a type), which {@link #firstRecordValid} also checks for a
 * write-ahead log or an older manifest.
 */
final class RocksDbManifest {
  private static final int BLOCK = 32 * 1024;
  private static final Pattern CURRENT_LINE = Pattern.compile("(MANIFEST-(\\d+))\n");
  private static final int FULL = 1, FIRST = 2, MIDDLE = 3, LAST = 4;
  private static final int SAFE_TO_IGNORE = 1 << 13;

  final String manifestName;
  /** Every table file (.sst) the manifest added, live or since deleted. */
  final Set<Long> tableFiles = new HashSet<>();
  /** Every blob file the manifest added, live or since garbage. */
  final Set<Long> blobFiles = new HashSet<>();
  /** Write-ahead logs numbered from here on hold data RocksDB would replay. */
  final long oldestLogToReplay;
  /** The database's id (the IDENTITY file's content), or null if the manifest records none. */
  final String dbId;

  private RocksDbManifest(String manifestName, long oldestLogToReplay, String dbId) {
    this.manifestName = manifestName;
    this.oldestLogToReplay = oldestLogToReplay;
    this.dbId = dbId;
  }

  /** The manifest that {@code dir}'s {@code CURRENT} names, or {@link NotADatabaseException}. */
  static RocksDbManifest read(Path dir) throws IOException {
    String current = isCurrentLine(readPrefix(dir.resolve("CURRENT"), 256));
    if (current == null) {
      throw new NotADatabaseException(dir, "its CURRENT file does not name a RocksDB manifest");
    }
    byte[] manifest;
    try {
      manifest = Files.readAllBytes(dir.resolve(current));
    } catch (NoSuchFileException e) {
      throw new NotADatabaseException(dir, "the manifest its CURRENT file names, " + current + ", does not exist");
    }
    Edits edits = new Edits();
    int records = forEachRecord(manifest, edits::apply);
    if (records == 0 || edits.malformed != null) {
      throw new NotADatabaseException(dir, current + " is not a RocksDB manifest ("
          + (records == 0 ? "no record with a valid checksum" : edits.malformed) + ")");
    }
    RocksDbManifest m = new RocksDbManifest(current, edits.oldestLogToReplay(), edits.dbId);
    m.tableFiles.addAll(edits.tables);
    m.blobFiles.addAll(edits.blobs);
    return m;
  }

  /** The manifest name if {@code content} is what RocksDB writes to CURRENT, else null. */
  static String isCurrentLine(byte[] content) {
    if (content == null) {
      return null;
    }
    Matcher m = CURRENT_LINE.matcher(new String(content, StandardCharsets.ISO_8859_1));
    return m.matches() ? m.group(1) : null;
  }

  /** Whether {@code file} starts with a record of RocksDB's log format whose checksum holds. */
  static boolean firstRecordValid(Path file) throws IOException {
    byte[] head = readPrefix(file, BLOCK);
    return head != null && forEachRecord(head, payload -> {}) > 0;
  }

  /** Up to {@code max} bytes from the start of {@code file}; null if there is no such file. */
  static byte[] readPrefix(Path file, int max) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer in = ByteBuffer.allocate((int) Math.min(max, ch.size()));
      while (in.hasRemaining() && ch.read(in) >= 0) {
        // read the prefix
      }
      return in.array();
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  /**
   * Hands each logical record of {@code log} (fragments joined) to {@code sink}, stopping at the
   * first fragment that is cut short or fails its checksum, as RocksDB's reader does at a torn
   * tail; returns how many fragments were valid.
   */
  private static int forEachRecord(byte[] log, Consumer<byte[]> sink) {
    ByteBuffer in = ByteBuffer.wrap(log).order(ByteOrder.LITTLE_ENDIAN);
    ByteArrayOutputStream pending = new ByteArrayOutputStream();
    int valid = 0;
    int pos = 0;
    while (pos + 7 <= log.length) {
      int leftInBlock = BLOCK - pos % BLOCK;
      if (leftInBlock < 7) {
        pos += leftInBlock; // a block's tail too short for a header is padding
        continue;
      }
      int masked = in.getInt(pos);
      int length = Short.toUnsignedInt(in.getShort(pos + 4));
      int type = Byte.toUnsignedInt(log[pos + 6]);
      boolean recyclable = type >= 5 && type <= 8;
      int header = recyclable ? 11 : 7;
      if ((type == 0 && length == 0) || pos + header + length > log.length || header + length > leftInBlock) {
        break; // preallocated zeros or a torn tail
      }
      CRC32C crc = new CRC32C();
      crc.update(log, pos + 6, header - 6 + length);
      if (unmask(masked) != (int) crc.getValue()) {
        break;
      }
      valid++;
      int kind = recyclable ? type - 4 : type;
      if (kind == FULL || kind == FIRST) {
        pending.reset();
      }
      if (kind >= FULL && kind <= LAST) {
        pending.write(log, pos + header, length);
        if (kind == FULL || kind == LAST) {
          sink.accept(pending.toByteArray());
        }
      }
      pos += header + length;
    }
    return valid;
  }

  private static int unmask(int masked) {
    int rot = masked - 0xa282ead8;
    return (rot >>> 17) | (rot << 15);
  }

  /** The version edits applied in order: which files were added, which stores live, their logs. */
  private static final class Edits {
    final Set<Long> tables = new HashSet<>();
    final Set<Long> blobs = new HashSet<>();
    final Map<Integer, Long> logNumberByStore = new HashMap<>(Map.of(0, 0L));
    String dbId;
    String malformed;

    long oldestLogToReplay() {
      return logNumberByStore.values().stream().mapToLong(Long::longValue).min().orElse(0);
    }

    void apply(byte[] edit) {
      if (malformed != null) {
        return;
      }
      try {
        decode(ByteBuffer.wrap(edit));
      } catch (RuntimeException e) { // a field ran past the record's end
        malformed = "a version edit does not decode: " + e;
      }
    }

    private void decode(ByteBuffer in) {
      int store = 0;
      Long logNumber = null;
      boolean added = false, dropped = false;
      while (in.hasRemaining() && malformed == null) {
        int tag = varint32(in);
        switch (tag) {
          case 1, 201 -> { // comparator name; a store added, by name
            skipSlice(in);
            added |= tag == 201;
          }
          case 2 -> logNumber = varint64(in);
          case 3, 4, 9, 10 -> varint64(in); // next file number, last sequence, previous log, oldest log to keep
          case 5 -> { // compaction cursor: level, key
            varint32(in);
            skipSlice(in);
          }
          case 6 -> { // a file deleted: level, number; the file was RocksDB's all the same
            varint32(in);
            varint64(in);
          }
          case 7, 100, 102, 103 -> tables.add(newFile(tag, in));
          case 200 -> store = varint32(in);
          case 202 -> dropped = true;
          case 203, 300 -> varint32(in); // the largest store id; the entries left in an atomic group
          case 400 -> { // a blob file added: number, count, bytes, checksum method and value, fields
            blobs.add(varint64(in));
            varint64(in);
            varint64(in);
            skipSlice(in);
            skipSlice(in);
            skipFields(in, 0);
          }
          case 401 -> { // garbage in a blob file: number, count, bytes, fields
            varint64(in);
            varint64(in);
            varint64(in);
            skipFields(in, 0);
          }
          default -> {
            if ((tag & SAFE_TO_IGNORE) == 0) {
              malformed = "unknown version edit field " + tag;
            } else if (tag == SAFE_TO_IGNORE + 1) { // the database's id
              byte[] id = new byte[varint32(in)];
              in.get(id);
              dbId = new String(id, StandardCharsets.UTF_8);
            } else {
              skipSlice(in); // a field RocksDB lets readers skip, length-prefixed
            }
          }
        }
      }
      if (dropped) {
        logNumberByStore.remove(store);
      } else if (logNumber != null) {
        logNumberByStore.put(store, logNumber);
      } else if (added) {
        logNumberByStore.putIfAbsent(store, 0L);
      }
    }

    /** A table file added (any of RocksDB's four layouts): its number. */
    private static long newFile(int tag, ByteBuffer in) {
      varint32(in); // level
      long number = varint64(in);
      if (tag == 102) {
        varint32(in); // path id
      }
      varint64(in); // size
      skipSlice(in); // smallest key
      skipSlice(in); // largest key
      if (tag != 7) {
        varint64(in); // smallest sequence
        varint64(in); // largest sequence
      }
      if (tag == 103) {
        skipFields(in, 1);
      }
      return number;
    }

    /** Tagged, length-prefixed fields up to the end marker {@code end}. */
    private static void skipFields(ByteBuffer in, int end) {
      while (varint32(in) != end) {
        skipSlice(in);
      }
    }
  }

  private static void skipSlice(ByteBuffer in) {
    int length = varint32(in);
    in.position(in.position() + length);
  }

  private static int varint32(ByteBuffer in) {
    long v = varint64(in);
    if (v >>> 32 != 0) {
      throw new IllegalStateException("a 32-bit varint holds " + v);
    }
    return (int) v;
  }

  private static long varint64(ByteBuffer in) {
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      byte b = in.get();
      v |= (long) (b & 0x7f) << shift;
      if (b >= 0) {
        return v;
      }
    }
    throw new IllegalStateException("a varint longer than 10 bytes");
  }
}
