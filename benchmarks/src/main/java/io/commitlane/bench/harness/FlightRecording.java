package io.commitlane.bench.harness;

import io.commitlane.actors.CommitlaneEvents;
import io.commitlane.bench.cli.Checks;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/**
 * {@code --jfr FILE}: a Flight Recorder recording of this process for the length of a command, with
 * the JDK's {@code default} settings plus every commitlane event (the per-commit ones included, no
 * threshold), dumped to FILE when the command ends.
 */
public final class FlightRecording implements AutoCloseable {
  private final Recording recording;
  private final Path file;

  private FlightRecording(Recording recording, Path file) {
    this.recording = recording;
    this.file = file;
  }

  /** Refuse a FILE that cannot be written before anything runs. */
  public static void check(String flag, Path file) {
    Path parent = file.toAbsolutePath().getParent();
    if (parent == null || !Files.isDirectory(parent)) {
      throw Checks.usage(flag + ": directory " + parent + " does not exist; name a file in an existing directory");
    }
    if (Files.isDirectory(file)) {
      throw Checks.usage(flag + ": " + file + " is a directory; name the recording's file, for example bench.jfr");
    }
  }

  public static FlightRecording start(Path file) {
    Recording r;
    try {
      r = new Recording(Configuration.getConfiguration("default"));
    } catch (IOException | ParseException e) {
      throw new IllegalStateException("cannot read the JDK's default Flight Recorder settings", e);
    }
    r.setName("commitlane");
    CommitlaneEvents.enableAll(r);
    r.start();
    return new FlightRecording(r, file);
  }

  public Path file() {
    return file;
  }

  /** Stop and write the recording to its file. */
  @Override
  public void close() {
    try {
      recording.stop();
      recording.dump(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the flight recording to " + file, e);
    } finally {
      recording.close();
    }
  }
}
