package io.commitlane.storage.internal.backup;

import io.commitlane.storage.BackupCorruptException;
import io.commitlane.storage.BackupInfo;
import io.commitlane.storage.CapturedLog;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.TreeSet;

/** A backup's {@code backup.properties}: what {@link BackupInfo} reports, in a file a person can read. */
public final class BackupMetadata {
  /** The layout of what commitlane adds to a backup; a restore refuses a newer one. */
  public static final int FORMAT_VERSION = 1;

  private BackupMetadata() {}

  public static void write(Path file, BackupInfo info) throws IOException {
    Properties p = new Properties();
    p.setProperty("format-version", Integer.toString(info.formatVersion()));
    p.setProperty("id", Integer.toString(info.id()));
    p.setProperty("created-at", info.createdAt().toString());
    p.setProperty("sequence", Long.toString(info.sequence()));
    p.setProperty("size-bytes", Long.toString(info.sizeBytes()));
    p.setProperty("source-identity", info.sourceIdentity() == null ? "" : info.sourceIdentity());
    p.setProperty("source-path", info.sourcePath());
    for (CapturedLog log : info.logs()) {
      String k = "log." + log.name() + ".";
      p.setProperty(k + "flushed-position", Long.toString(log.flushedPosition()));
      p.setProperty(k + "end-position", Long.toString(log.endPosition()));
      p.setProperty(k + "bytes", Long.toString(log.bytes()));
    }
    try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      p.store(w, "commitlane backup");
    }
  }

  /**
   * The metadata of backup {@code id}; one that is missing, unreadable, malformed or names another
   * backup is damage ({@link BackupCorruptException} naming the file).
   */
  public static BackupInfo read(BackupLayout layout, int id) {
    Path file = layout.backup(id).resolve(BackupLayout.METADATA);
    Path rel = layout.root.relativize(file);
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      throw new BackupCorruptException(id, rel, "is missing");
    }
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(r);
    } catch (IOException | IllegalArgumentException e) {
      throw new BackupCorruptException(id, rel, "cannot be read (" + e.getMessage() + ")");
    }
    try {
      List<CapturedLog> logs = new ArrayList<>();
      TreeSet<String> names = new TreeSet<>();
      for (String key : p.stringPropertyNames()) {
        if (key.startsWith("log.") && key.endsWith(".end-position")) {
          names.add(key.substring(4, key.length() - ".end-position".length()));
        }
      }
      for (String n : names) {
        String k = "log." + n + ".";
        logs.add(new CapturedLog(n, number(p, k + "flushed-position"), number(p, k + "end-position"), number(p, k + "bytes")));
      }
      String identity = p.getProperty("source-identity", "");
      long recordedId = number(p, "id");
      if (recordedId != id) {
        throw new IllegalArgumentException("it describes backup " + recordedId);
      }
      return new BackupInfo(id, Instant.parse(text(p, "created-at")), number(p, "sequence"), number(p, "size-bytes"),
          (int) number(p, "format-version"), identity.isEmpty() ? null : identity, p.getProperty("source-path", ""), logs,
          BackupInfo.State.COMPLETE, "");
    } catch (IllegalArgumentException | DateTimeException e) {
      throw new BackupCorruptException(id, rel, "is malformed: " + e.getMessage());
    }
  }

  private static String text(Properties p, String key) {
    String v = p.getProperty(key);
    if (v == null) {
      throw new IllegalArgumentException("field " + key + " is missing");
    }
    return v;
  }

  private static long number(Properties p, String key) {
    String v = text(p, key);
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("field " + key + " is not a number: " + v);
    }
  }
}
