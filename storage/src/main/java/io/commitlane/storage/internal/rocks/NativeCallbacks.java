package io.commitlane.storage.internal.rocks;

import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether RocksDB's callbacks from its own threads can reach Java. RocksDB builds a callback's
 * argument (a {@code FlushJobInfo}) on a native thread attached to the JVM, where JNI's {@code
 * FindClass} looks in the system class loader only. Where rocksdbjni is loaded by another loader
 * ({@code mvn exec:java}, some application servers), every such callback fails with {@code
 * NoClassDefFoundError}: flush events are lost (the transaction log's flushed position stays
 * behind, so reopening replays more and purging removes nothing), and background errors go
 * unreported. Checked once per JVM at the first open; a warning says what to do.
 */
public final class NativeCallbacks {
  private static final Logger LOG = LoggerFactory.getLogger("io.commitlane.storage.NativeCallbacks"); // the name it always logged under
  private static final AtomicBoolean CHECKED = new AtomicBoolean();

  private NativeCallbacks() {}

  /** Whether the system class loader sees RocksDB's callback classes. */
  static boolean reachable() {
    try {
      Class.forName("org.rocksdb.FlushJobInfo", false, ClassLoader.getSystemClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  public static void warnOnceIfUnreachable() {
    if (CHECKED.compareAndSet(false, true) && !reachable()) {
      LOG.warn("rocksdbjni is not on the system class path (as under mvn exec:java): RocksDB's flush and background-error"
          + " callbacks cannot reach Java, so flush events are lost (reopening replays more of the transaction logs, and"
          + " purging removes nothing) and background errors are not reported. Run with rocksdbjni on the class path"
          + " (java -cp ..., or exec:exec)");
    }
  }
}
