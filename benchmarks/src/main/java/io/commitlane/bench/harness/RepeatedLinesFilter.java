package io.commitlane.bench.harness;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Marker;
import org.slf4j.helpers.MessageFormatter;

/**
 * Collapses bursts of one line: a logger that logs the same message again within {@code
 * windowMillis} of its first time logs it once; the next different line of that logger, or the
 * same one after the window, is preceded by how many were left out. A node that resumes after
 * being frozen otherwise prints the split-brain resolver's "SBR took decision
 * DownSelfQuarantinedByRemote" and "SBR is downing" once per message that waited for it (a
 * hundred or more within milliseconds). Installed by the command line's {@code logback.xml}.
 */
public final class RepeatedLinesFilter extends TurboFilter {
  private static final ThreadLocal<Boolean> SUMMARIZING = ThreadLocal.withInitial(() -> false);

  /** The last line of a logger: its text, when it was first logged, and how many repeats were left out. */
  private static final class Last {
    final String message;
    final Level level;
    final long firstAt;
    int leftOut;

    Last(String message, Level level, long firstAt) {
      this.message = message;
      this.level = level;
      this.firstAt = firstAt;
    }
  }

  private final Map<String, Last> last = new ConcurrentHashMap<>();
  private long windowMillis = 1000;

  public void setWindowMillis(long windowMillis) {
    this.windowMillis = windowMillis;
  }

  @Override
  public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
    if (format == null || SUMMARIZING.get() || !level.isGreaterOrEqual(logger.getEffectiveLevel())) {
      return FilterReply.NEUTRAL;
    }
    String message = params == null || params.length == 0 ? format : MessageFormatter.arrayFormat(format, params).getMessage();
    long now = System.currentTimeMillis();
    Last previous;
    synchronized (this) {
      previous = last.get(logger.getName());
      if (previous != null && previous.message.equals(message) && now - previous.firstAt < windowMillis) {
        previous.leftOut++;
        return FilterReply.DENY;
      }
      last.put(logger.getName(), new Last(message, level, now));
    }
    if (previous != null && previous.leftOut > 0) {
      SUMMARIZING.set(true);
      try {
        logger.log(marker, Logger.FQCN, Level.toLocationAwareLoggerInteger(previous.level), "(the line \"{}\" was repeated {} more time(s) within {} ms)",
            new Object[] {abbreviate(previous.message), previous.leftOut, windowMillis}, null);
      } finally {
        SUMMARIZING.set(false);
      }
    }
    return FilterReply.NEUTRAL;
  }

  private static String abbreviate(String s) {
    Objects.requireNonNull(s);
    return s.length() <= 100 ? s : s.substring(0, 100) + "...";
  }
}
