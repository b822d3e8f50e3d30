package io.commitlane.txlog.internal.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FaultInjectingFileSystemTest {
  @TempDir Path dir;

  @Test
  void aPowerLossCutsWhatWasNotForced() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem(JdkFileSystem.INSTANCE);
    Path file = dir.resolve("segment");
    try (LogFile f = fs.create(file)) {
      f.write(ByteBuffer.wrap(new byte[] {1, 2, 3}), 0);
      f.force();
      f.write(ByteBuffer.wrap(new byte[] {4, 5}), 3);
    }
    fs.crash();
    assertEquals(3, Files.size(file));
  }

  @Test
  void aFileRenamedAwayWhileThePowerLossIsSimulatedIsPassedOver() throws Exception {
    Path renamed = dir.resolve("flushed-position.tmp");
    // The crashed process's own thread renames the file right after the crash saw it exist.
    LogFileSystem racing = (LogFileSystem) Proxy.newProxyInstance(LogFileSystem.class.getClassLoader(),
        new Class<?>[] {LogFileSystem.class}, (proxy, method, args) -> {
          Object result;
          try {
            result = method.invoke(JdkFileSystem.INSTANCE, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
          if (method.getName().equals("exists") && args[0].equals(renamed) && Boolean.TRUE.equals(result)) {
            Files.move(renamed, dir.resolve("flushed-position"));
          }
          return result;
        });
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem(racing);
    try (LogFile f = fs.create(renamed)) {
      f.write(ByteBuffer.wrap(new byte[] {1, 2, 3}), 0);
    }
    fs.crash(); // threw NoSuchFileException
    assertFalse(Files.exists(renamed));
  }
}
