package io.commitlane.cluster;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.LoggerFactory;

/** Opens when a logger logs a message containing a text: a deterministic signal that a step of a node's shutdown began. */
final class LogLatch extends AppenderBase<ILoggingEvent> implements AutoCloseable {
  private final Logger logger;
  private final String text;
  private final CountDownLatch latch = new CountDownLatch(1);
  private final AtomicInteger matches = new AtomicInteger();
  /** The logger's own level before this latch lowered it to DEBUG (restored on close). */
  private final Level level;

  private LogLatch(String source, String text) {
    this.logger = (Logger) LoggerFactory.getLogger(source);
    this.text = text;
    this.level = logger.getLevel();
  }

  static LogLatch on(Class<?> source, String text) {
    return on(source.getName(), text);
  }

  /** Also sees DEBUG lines of {@code logger} while it is open. */
  static LogLatch on(String logger, String text) {
    LogLatch l = new LogLatch(logger, text);
    l.setContext(l.logger.getLoggerContext());
    l.start();
    if (!l.logger.isDebugEnabled()) {
      l.logger.setLevel(Level.DEBUG);
    }
    l.logger.addAppender(l);
    return l;
  }

  @Override
  protected void append(ILoggingEvent event) {
    if (event.getFormattedMessage().contains(text)) {
      matches.incrementAndGet();
      latch.countDown();
    }
  }

  void await(Duration timeout) throws InterruptedException {
    if (!latch.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("no log message containing \"" + text + "\" within " + timeout);
    }
  }

  /** How many messages containing the text were logged since this latch opened on the logger. */
  int count() {
    return matches.get();
  }

  @Override
  public void close() {
    logger.detachAppender(this);
    logger.setLevel(level);
    stop();
  }
}
