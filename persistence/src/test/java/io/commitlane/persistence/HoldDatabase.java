package io.commitlane.persistence;

import io.commitlane.storage.Database;
import java.nio.file.Path;

/** A process that holds a database open (its RocksDB lock) until its standard input closes. */
public final class HoldDatabase {
  private HoldDatabase() {}

  public static void main(String[] args) throws Exception {
    try (Database db = Database.open(Path.of(args[0]))) {
      System.out.println("holding");
      System.out.flush();
      while (System.in.read() >= 0) {
        // wait for the parent to close our input
      }
    }
  }
}
