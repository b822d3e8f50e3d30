package io.commitlane.actors.internal.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** Values recorded on several threads are each read exactly once, also after their threads ended. */
class IntervalRecorderTest {
  @Test
  void everyThreadsValuesAreReadOnceAndEndedThreadsStillCount() throws Exception {
    IntervalRecorder recorder = new IntervalRecorder(3);
    List<Thread> threads = new ArrayList<>();
    for (int t = 1; t <= 4; t++) {
      long value = t * 1000L;
      threads.add(new Thread(() -> {
        for (int i = 0; i < 100; i++) {
          recorder.recordValue(value);
        }
      }));
    }
    threads.forEach(Thread::start);
    for (Thread t : threads) {
      t.join();
    }
    recorder.recordValue(5000);
    Histogram first = recorder.getIntervalHistogram();
    assertEquals(401, first.getTotalCount());
    for (int t = 1; t <= 4; t++) {
      assertEquals(100, first.getCountAtValue(t * 1000L), "thread " + t);
    }
    assertEquals(1, first.getCountAtValue(5000));
    recorder.recordValue(7000);
    Histogram second = recorder.getIntervalHistogram();
    assertEquals(1, second.getTotalCount(), "the interval holds only what was recorded since the previous read");
    assertEquals(1, second.getCountAtValue(7000));
    assertEquals(0, recorder.getIntervalHistogram().getTotalCount());
  }
}
