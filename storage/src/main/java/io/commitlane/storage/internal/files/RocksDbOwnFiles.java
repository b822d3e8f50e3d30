package io.commitlane.storage.internal.files;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The files in a database directory that RocksDB wrote, and only those: a name RocksDB uses is
 * not enough, since a user may keep a {@code LOG} or a {@code 000999.log} of their own there.
 * Each file is claimed by what proves it RocksDB's: table and blob files by the manifest that
 * added them, write-ahead logs and older manifests by a first record carrying RocksDB's log
 * checksum (or, for an empty log, a number RocksDB would replay), and the small bookkeeping files
 * by the content RocksDB writes to them. The current manifest goes last and {@code CURRENT}
 * just before it, so a destroy cut short can be run again.
 */
final class RocksDbOwnFiles {
  private static final Pattern NUMBERED = Pattern.compile("(\\d+)\\.(sst|ldb|blob|log|dbtmp)");
  private static final Pattern MANIFEST = Pattern.compile("MANIFEST-\\d+");
  private static final Pattern OPTIONS = Pattern.compile("OPTIONS-\\d+(\\.dbtmp)?");
  private static final Pattern INFO_LOG = Pattern.compile("LOG(\\.old\\.\\d+)?");
  private static final Pattern IDENTITY = Pattern.compile("[0-9A-Za-z-]{8,64}\n?");
  private static final byte[] OPTIONS_HEADER = "# This is a RocksDB option file.".getBytes(StandardCharsets.US_ASCII);

  private RocksDbOwnFiles() {}

  /** RocksDB's files in {@code dir}, in the order they may be deleted. */
  static List<Path> of(Path dir, RocksDbManifest manifest) throws IOException {
    List<Path> own = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path file : entries) {
        String name = file.getFileName().toString();
        if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) && !name.equals("CURRENT")
            && !name.equals(manifest.manifestName) && isRocksDbs(file, name, manifest)) {
          own.add(file);
        }
      }
    }
    own.add(dir.resolve("CURRENT"));
    own.add(dir.resolve(manifest.manifestName));
    return own;
  }

  private static boolean isRocksDbs(Path file, String name, RocksDbManifest manifest) throws IOException {
    Matcher numbered = NUMBERED.matcher(name);
    if (numbered.matches()) {
      long number = Long.parseLong(numbered.group(1));
      return switch (numbered.group(2)) {
        case "sst", "ldb" -> manifest.tableFiles.contains(number);
        case "blob" -> manifest.blobFiles.contains(number);
        case "log" -> RocksDbManifest.firstRecordValid(file) || (Files.size(file) == 0 && number >= manifest.oldestLogToReplay);
        default -> RocksDbManifest.isCurrentLine(RocksDbManifest.readPrefix(file, 256)) != null; // CURRENT being replaced
      };
    }
    if (MANIFEST.matcher(name).matches()) {
      return RocksDbManifest.firstRecordValid(file); // an older manifest not deleted yet
    }
    if (OPTIONS.matcher(name).matches()) {
      return startsWith(RocksDbManifest.readPrefix(file, OPTIONS_HEADER.length), OPTIONS_HEADER);
    }
    if (INFO_LOG.matcher(name).matches()) {
      return new String(RocksDbManifest.readPrefix(file, 4096), StandardCharsets.ISO_8859_1).contains("RocksDB version:");
    }
    if (name.equals("IDENTITY")) {
      String id = new String(RocksDbManifest.readPrefix(file, 80), StandardCharsets.ISO_8859_1);
      return manifest.dbId != null ? id.strip().equals(manifest.dbId) : IDENTITY.matcher(id).matches();
    }
    return name.equals("LOCK") && Files.size(file) == 0;
  }

  private static boolean startsWith(byte[] content, byte[] prefix) {
    return content.length == prefix.length && Arrays.equals(content, prefix);
  }
}
