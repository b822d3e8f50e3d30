package io.commitlane.actors.stream.internal;

import io.commitlane.actors.stream.Ingest;
import io.commitlane.actors.stream.IngestBatch;
import io.commitlane.actors.stream.RecordWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.FlowShape;
import org.apache.pekko.stream.Inlet;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.stage.GraphStage;
import org.apache.pekko.stream.stage.GraphStageLogic;
import org.apache.pekko.stream.stage.InHandler;
import org.apache.pekko.stream.stage.OutHandler;
import org.apache.pekko.stream.stage.TimerGraphStageLogic;

/**
 * Groups records into {@link IngestBatch}es of at most {@code maxRecords} records and {@code
 * maxBytes} bytes (a single heavier record goes alone). It keeps pulling until the batch is full,
 * then backpressures, so it buffers one batch and one record at most.
 *
 * <p>With no linger a batch is emitted as soon as downstream asks and the batch is not empty:
 * while the committer keeps up every record goes at once, and batches grow only as long as
 * commits are in flight (what {@code batchWeighted} does, with a record cap as well). With a
 * linger, a batch is emitted once it is full, once its first record has waited the linger, or at
 * the end of the stream (what {@code groupedWeightedWithin} does). Runs on the stream's
 * dispatcher; the linger timer uses the materializer's scheduler.
 */
public final class RecordBatcher<T> extends GraphStage<FlowShape<T, IngestBatch<T>>> {
  private static final Object LINGER = "linger";

  private final int maxRecords;
  private final long maxBytes;
  private final Duration linger;
  private final RecordWriter<T> weigher;
  private final Inlet<T> in = Inlet.create("Ingest.batcher.in");
  private final Outlet<IngestBatch<T>> out = Outlet.create("Ingest.batcher.out");
  private final FlowShape<T, IngestBatch<T>> shape = FlowShape.of(in, out);

  public RecordBatcher(int maxRecords, long maxBytes, Duration linger, RecordWriter<T> weigher) {
    this.maxRecords = maxRecords;
    this.maxBytes = maxBytes;
    this.linger = linger;
    this.weigher = weigher;
  }

  @Override
  public FlowShape<T, IngestBatch<T>> shape() {
    return shape;
  }

  @Override
  public Attributes initialAttributes() {
    return Attributes.name("ingestBatcher");
  }

  @Override
  public GraphStageLogic createLogic(Attributes inheritedAttributes) {
    return new Logic();
  }

  private final class Logic extends TimerGraphStageLogic implements InHandler, OutHandler {
    private List<T> records = new ArrayList<>();
    private long bytes;
    private long batchNumber;
    private long firstRecord;
    private long nextRecord;
    /** A record that did not fit in the current batch: it starts the next one. */
    private T overflow;
    private long overflowBytes;
    private boolean lingered;

    Logic() {
      super(shape);
      setHandlers(in, out, this);
    }

    @Override
    public void preStart() {
      pull(in);
    }

    @Override
    public void onPush() {
      T record = grab(in);
      long w = weigher.bytes(record);
      if (w < 0) {
        failStage(new IllegalArgumentException("RecordWriter.bytes returned " + w + " for record " + nextRecord + "; weights must be >= 0"));
        return;
      }
      if (!records.isEmpty() && bytes + w > maxBytes) {
        overflow = record;
        overflowBytes = w;
      } else {
        add(record, w);
      }
      emitIfReady();
      pullIfRoom();
    }

    @Override
    public void onUpstreamFinish() {
      if (records.isEmpty() && overflow == null) {
        completeStage();
      } else {
        emitIfReady();
      }
    }

    @Override
    public void onPull() {
      emitIfReady();
      pullIfRoom();
    }

    @Override
    public void onTimer(Object key) {
      lingered = true;
      emitIfReady();
    }

    private void add(T record, long w) {
      if (records.isEmpty()) {
        firstRecord = nextRecord;
        if (!linger.isZero()) {
          lingered = false;
          scheduleOnce(LINGER, linger);
        }
      }
      records.add(record);
      bytes += w;
      nextRecord++;
    }

    private boolean full() {
      return records.size() >= maxRecords || bytes >= maxBytes;
    }

    private boolean ready() {
      return !records.isEmpty() && (linger.isZero() || lingered || full() || overflow != null || isClosed(in));
    }

    private void emitIfReady() {
      if (!isAvailable(out) || !ready()) {
        return;
      }
      IngestBatch<T> batch = new IngestBatch<>(batchNumber++, firstRecord, Collections.unmodifiableList(records), bytes);
      records = new ArrayList<>(Math.min(maxRecords, Math.max(16, batch.size())));
      bytes = 0;
      cancelTimer(LINGER);
      if (overflow != null) {
        T r = overflow;
        overflow = null;
        add(r, overflowBytes);
      }
      push(out, batch);
      if (isClosed(in) && records.isEmpty()) {
        completeStage();
      }
    }

    private void pullIfRoom() {
      if (overflow == null && !full() && !isClosed(in) && !hasBeenPulled(in)) {
        pull(in);
      }
    }
  }
}
