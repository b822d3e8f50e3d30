package io.commitlane.bench.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A burst of one line is logged once; the next line says how many were left out. */
class RepeatedLinesFilterTest {
  @Test
  void aBurstOfOneLineIsLoggedOnceWithItsCount() {
    LoggerContext context = new LoggerContext();
    RepeatedLinesFilter filter = new RepeatedLinesFilter();
    filter.setWindowMillis(600_000); // the whole test is one burst, however slow the machine
    filter.setContext(context);
    filter.start();
    context.addTurboFilter(filter);
    ListAppender<ILoggingEvent> seen = new ListAppender<>();
    seen.setContext(context);
    seen.start();
    Logger sbr = context.getLogger("org.apache.pekko.cluster.sbr.SplitBrainResolver");
    sbr.setLevel(Level.INFO);
    sbr.addAppender(seen);
    for (int i = 0; i < 83; i++) {
      sbr.warn("SBR took decision {} and is downing [{}]", "DownSelfQuarantinedByRemote", "pekko://commitlane@127.0.0.1:2552");
    }
    sbr.info("SBR is downing [{}]", "pekko://commitlane@127.0.0.1:2552");
    sbr.debug("not logged: below the level");
    List<String> lines = seen.list.stream().map(e -> e.getLevel() + " " + e.getFormattedMessage()).toList();
    assertEquals(List.of(
        "WARN SBR took decision DownSelfQuarantinedByRemote and is downing [pekko://commitlane@127.0.0.1:2552]",
        "WARN (the line \"SBR took decision DownSelfQuarantinedByRemote and is downing [pekko://commitlane@127.0.0.1:2552]\" was repeated"
            + " 82 more time(s) within 600000 ms)",
        "INFO SBR is downing [pekko://commitlane@127.0.0.1:2552]"), lines);
  }
}
