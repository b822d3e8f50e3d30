package io.commitlane.storage.internal.files;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Store drops that were decided but may not be done: one small file per drop in {@code
 * <db>/store-drops/}, named by the store's generation and holding its name. Written (and synced)
 * before a drop becomes visible, deleted after the column family is gone, so a database reopened
 * after a crash finishes every drop that any caller could have seen.
 */
public final class DropIntents {
  public static final String DIRECTORY = "store-drops";
  private static final String SUFFIX = ".drop";

  private final Path dir;

  public DropIntents(Path databaseDir) {
    this.dir = databaseDir.resolve(DIRECTORY);
  }

  /** Record the intent durably: written to a temporary file, synced, renamed, directory synced. */
  public void persist(int generation, String name) {
    try {
      Files.createDirectories(dir);
      Path tmp = dir.resolve(generation + SUFFIX + ".tmp");
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
          StandardOpenOption.TRUNCATE_EXISTING)) {
        ByteBuffer b = ByteBuffer.wrap(name.getBytes(StandardCharsets.UTF_8));
        while (b.hasRemaining()) {
          ch.write(b);
        }
        ch.force(true);
      }
      Files.move(tmp, file(generation), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      syncDirectory();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot record the drop of store '" + name + "' in " + dir + "; the store was not dropped", e);
    }
  }

  /** The drop is done (or was found already done): forget it. A lost delete only repeats a no-op at reopen. */
  public void remove(int generation) {
    try {
      Files.deleteIfExists(file(generation));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete the drop record " + file(generation), e);
    }
  }

  /** Every recorded intent: generation to store name. A torn temporary file is no intent (never renamed). */
  public Map<Integer, String> pending() {
    Map<Integer, String> out = new LinkedHashMap<>();
    if (!Files.isDirectory(dir)) {
      return out;
    }
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.sorted().toList()) {
        String n = f.getFileName().toString();
        if (n.endsWith(SUFFIX + ".tmp")) {
          Files.deleteIfExists(f);
        } else if (n.endsWith(SUFFIX)) {
          try {
            int generation = Integer.parseInt(n.substring(0, n.length() - SUFFIX.length()));
            out.put(generation, new String(Files.readAllBytes(f), StandardCharsets.UTF_8));
          } catch (NumberFormatException | NoSuchFileException e) {
            // not one of ours, or removed meanwhile: nothing to finish
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the drop records in " + dir, e);
    }
    return out;
  }

  private Path file(int generation) {
    return dir.resolve(generation + SUFFIX);
  }

  private void syncDirectory() throws IOException {
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    }
  }
}
