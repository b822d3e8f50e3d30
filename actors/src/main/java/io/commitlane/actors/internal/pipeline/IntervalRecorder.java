package io.commitlane.actors.internal.pipeline;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * An HdrHistogram interval recorder for values recorded on a few threads at a high rate (commit
 * executors): each recording thread writes its own {@link SingleWriterRecorder}, so recording
 * takes no atomic operation that another thread also writes; reading the interval merges them.
 * One recorder per live thread that recorded (commit threads, or callers' threads when commits run
 * inline): a few kilobytes each; a thread's recorder is dropped once it has ended
 * and its last values were read.
 */
final class IntervalRecorder {
  private final int significantDigits;
  private final List<Writer> all = new CopyOnWriteArrayList<>();
  private final ThreadLocal<SingleWriterRecorder> mine = ThreadLocal.withInitial(this::add);

  IntervalRecorder(int significantDigits) {
    this.significantDigits = significantDigits;
  }

  /** One thread's recorder. */
  private record Writer(Thread thread, SingleWriterRecorder recorder) {}

  private SingleWriterRecorder add() {
    SingleWriterRecorder r = new SingleWriterRecorder(significantDigits);
    all.add(new Writer(Thread.currentThread(), r));
    return r;
  }

  void recordValue(long value) {
    mine.get().recordValue(value);
  }

  /** What every thread recorded since the previous call. */
  Histogram getIntervalHistogram() {
    Histogram h = new Histogram(significantDigits);
    for (Writer w : all) {
      boolean ended = !w.thread().isAlive(); // before reading: an ended thread records nothing more
      h.add(w.recorder().getIntervalHistogram());
      if (ended) {
        all.remove(w);
      }
    }
    return h;
  }
}
