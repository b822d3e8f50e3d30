package io.commitlane.cluster;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.LoggerFactory;

/** Opens when a logger logs a message containing a text: a deterministic signal that a step of a node's shutdown began. */
final class LogLatch extends AppenderBase<ILoggingEvent> implements AutoCloseable {
  private final Logger logger;
  private final String text;
  private final CountDownLatch latch = new CountDownLatch(1);

  private LogLatch(Class<?> source, String text) {
    this.logger = (Logger) LoggerFactory.getLogger(source);
    this.text = text;
  }

  static LogLatch on(Class<?> source, String text) {
    LogLatch l = new LogLatch(source, text);
    l.setContext(l.logger.getLoggerContext());
    l.start();
    l.logger.addAppender(l);
    return l;
  }

  @Override
  protected void append(ILoggingEvent event) {
    if (event.getFormattedMessage().contains(text)) {
      latch.countDown();
    }
  }

  void await(Duration timeout) throws InterruptedException {
    if (!latch.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("no log message containing \"" + text + "\" within " + timeout);
    }
  }

  @Override
  public void close() {
    logger.detachAppender(this);
    stop();
  }
}
