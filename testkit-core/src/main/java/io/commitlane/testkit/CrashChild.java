package io.commitlane.testkit;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * The forked JVM's entry point: {@code CrashChild <workload class> <dir> [args...]}. Prints
 * {@code ACK <id>} and {@code AT <marker>} lines on stdout (flushed per line), {@code DONE} when the
 * workload returns, and exits 3 with the stack trace on stderr if it throws.
 */
public final class CrashChild {
  private CrashChild() {}

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, "UTF-8");
    CrashWorkload workload = (CrashWorkload) Class.forName(args[0]).getDeclaredConstructor().newInstance();
    List<String> rest = Arrays.asList(args).subList(2, args.length);
    CrashWorkload.Reporter reporter = new CrashWorkload.Reporter() {
      @Override
      public void acknowledged(String id) {
        synchronized (out) {
          out.println("ACK " + id);
        }
      }

      @Override
      public void reached(String marker) {
        synchronized (out) {
          out.println("AT " + marker);
        }
      }
    };
    try {
      workload.run(Path.of(args[1]), rest, reporter);
      out.println("DONE");
      out.flush();
      System.exit(0);
    } catch (Throwable e) {
      e.printStackTrace();
      System.exit(3);
    }
  }
}
