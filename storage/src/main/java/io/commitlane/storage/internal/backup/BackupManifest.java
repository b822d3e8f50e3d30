package io.commitlane.storage.internal.backup;

import io.commitlane.storage.BackupCancelledException;
import io.commitlane.storage.BackupCorruptException;
import io.commitlane.storage.BackupProgress;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * The SHA-256 of every file a backup consists of, written when the backup is taken: RocksDB's
 * files (those its {@code meta/<id>} names, shared with other backups or not), that {@code meta}
 * file itself, and commitlane's metadata, logs and store-drop records. RocksDB's Java API has no
 * {@code VerifyBackup}; this is what verification compares against. One line per file ({@code
 * <sha256> <size> <path>}, paths relative to the backup directory, {@code /}-separated), then a
 * last line with the SHA-256 of the lines before it, so a damaged manifest is caught too.
 */
public final class BackupManifest {
  public record Entry(String sha256, long size, String path) {}

  private static final String END = "end ";

  private BackupManifest() {}

  /** The files RocksDB's backup {@code id} consists of, as its {@code meta/<id>} names them, and that file. */
  public static List<String> rocksDbFiles(BackupLayout layout, int id) throws IOException {
    Path meta = layout.root.resolve("meta").resolve(Integer.toString(id));
    if (!Files.isRegularFile(meta, LinkOption.NOFOLLOW_LINKS)) {
      throw new BackupCorruptException(id, layout.root.relativize(meta), "is missing (RocksDB's description of the backup)");
    }
    Set<String> files = new LinkedHashSet<>();
    files.add("meta/" + id);
    for (String line : Files.readAllLines(meta, StandardCharsets.UTF_8)) {
      for (String token : line.trim().split("\\s+")) {
        if (token.startsWith("private/") || token.startsWith("shared/") || token.startsWith("shared_checksum/")) {
          files.add(token);
        }
      }
    }
    return new ArrayList<>(files);
  }

  /** Hashes {@code files} (paths relative to the layout's root, read at {@code readFrom} when staged). */
  public static List<Entry> hash(BackupLayout layout, int id, List<String> files, java.util.function.Function<String, Path> readFrom,
      BackupProgress progress, long total, long[] done, BooleanSupplier cancelled) throws IOException {
    List<Entry> out = new ArrayList<>();
    for (String f : files) {
      if (cancelled.getAsBoolean()) {
        throw new BackupCancelledException("cancelled while checksumming " + f);
      }
      Path file = readFrom.apply(f);
      if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
        throw new BackupCorruptException(id, Path.of(f), "is missing");
      }
      String sha = sha256(file);
      long size = Files.size(file);
      done[0] += size;
      progress.progress("checksums", done[0], total);
      out.add(new Entry(sha, size, f));
    }
    return out;
  }

  public static void write(Path file, List<Entry> entries) throws IOException {
    StringBuilder body = new StringBuilder();
    for (Entry e : entries) {
      body.append(e.sha256()).append(' ').append(e.size()).append(' ').append(e.path()).append('\n');
    }
    String text = body + END + sha256(body.toString().getBytes(StandardCharsets.UTF_8)) + "\n";
    Files.writeString(file, text, StandardCharsets.UTF_8);
    try (var ch = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.WRITE)) {
      ch.force(true);
    }
  }

  /** The entries of backup {@code id}'s manifest; refuses a manifest that is missing or altered. */
  public static List<Entry> read(BackupLayout layout, int id) throws IOException {
    Path file = layout.backup(id).resolve(BackupLayout.MANIFEST);
    Path rel = layout.root.relativize(file);
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      throw new BackupCorruptException(id, rel, "is missing");
    }
    String text = Files.readString(file, StandardCharsets.ISO_8859_1);
    int last = text.lastIndexOf(END);
    if (last < 0 || !text.endsWith("\n")) {
      throw new BackupCorruptException(id, rel, "is truncated (it has no end line)");
    }
    String body = text.substring(0, last);
    String recorded = text.substring(last + END.length()).trim();
    if (!recorded.equals(sha256(body.getBytes(StandardCharsets.ISO_8859_1)))) {
      throw new BackupCorruptException(id, rel, "does not match its own checksum (it was changed or damaged)");
    }
    List<Entry> out = new ArrayList<>();
    for (String line : body.split("\n")) {
      if (line.isEmpty()) {
        continue;
      }
      String[] parts = line.split(" ", 3);
      if (parts.length != 3) {
        throw new BackupCorruptException(id, rel, "has a malformed line: " + line);
      }
      try {
        out.add(new Entry(parts[0], Long.parseLong(parts[1]), parts[2]));
      } catch (NumberFormatException e) {
        throw new BackupCorruptException(id, rel, "has a malformed line: " + line);
      }
    }
    return out;
  }

  public static String sha256(Path file) throws IOException {
    MessageDigest md = digest();
    byte[] buf = new byte[1 << 16];
    try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
      for (int n; (n = in.read(buf)) > 0; ) {
        md.update(buf, 0, n);
      }
    }
    return HexFormat.of().formatHex(md.digest());
  }

  private static String sha256(byte[] bytes) {
    return HexFormat.of().formatHex(digest().digest(bytes));
  }

  private static MessageDigest digest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-256", e);
    }
  }
}
