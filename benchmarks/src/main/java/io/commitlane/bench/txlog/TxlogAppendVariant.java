package io.commitlane.bench.txlog;

import io.commitlane.bench.harness.CommitVariant;
import io.commitlane.txlog.Durability;
import io.commitlane.txlog.LogSettings;
import io.commitlane.txlog.TransactionLog;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One transaction-log record per "commit": append, finish (the watermark moves), and with fsync
 * durability wait until the record is synced. The value is the record's entry.
 */
public record TxlogAppendVariant(Durability durability) implements CommitVariant {
  @Override
  public String name() {
    return "commitlane txlog " + durability.name().toLowerCase(java.util.Locale.ROOT);
  }

  @Override
  public Session open(Path dir) {
    TransactionLog log = TransactionLog.open(dir.resolve("log"), LogSettings.defaults().withDurability(durability));
    AtomicLong ids = new AtomicLong();
    return new Session() {
      @Override
      public Worker worker() {
        return (keys, value) -> {
          long pos = log.append(ids.incrementAndGet(), System.currentTimeMillis(), List.of(ByteBuffer.wrap(value)), null);
          log.finish(pos, () -> 0L);
          if (durability == Durability.FSYNC) {
            log.awaitDurable(pos);
          }
          return true;
        };
      }

      @Override
      public void close() {
        log.close();
      }
    };
  }
}
