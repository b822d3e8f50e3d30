package io.commitlane.storage;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.TreeSet;

/** A backup's {@code backup.properties}: what {@link BackupInfo} reports, in a file a person can read. */
final class BackupMetadata {
  /** The layout of what commitlane adds to a backup; a restore refuses a newer one. */
  static final int FORMAT_VERSION = 1;

  private BackupMetadata() {}

  static void write(Path file, BackupInfo info) throws IOException {
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

  static BackupInfo read(Path file, boolean complete) throws IOException {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(r);
    }
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
    return new BackupInfo((int) number(p, "id"), Instant.parse(p.getProperty("created-at")), number(p, "sequence"),
        number(p, "size-bytes"), (int) number(p, "format-version"), identity.isEmpty() ? null : identity,
        p.getProperty("source-path", ""), logs, complete);
  }

  private static long number(Properties p, String key) throws IOException {
    String v = p.getProperty(key);
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new IOException("field " + key + " is missing or not a number: " + v);
    }
  }
}
