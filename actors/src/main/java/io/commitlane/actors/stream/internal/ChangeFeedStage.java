package io.commitlane.actors.stream.internal;

import io.commitlane.actors.stream.ChangeFeed;
import io.commitlane.txlog.LogReader;
import io.commitlane.txlog.LogRecord;
import io.commitlane.txlog.LogView;
import io.commitlane.txlog.ReadRequest;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.SourceShape;
import org.apache.pekko.stream.stage.AsyncCallback;
import org.apache.pekko.stream.stage.GraphStage;
import org.apache.pekko.stream.stage.GraphStageLogic;
import org.apache.pekko.stream.stage.OutHandler;

/**
 * The stage behind {@link ChangeFeed}: a {@link LogReader} read only when downstream pulls, so
 * the log (not memory) buffers for a slow consumer and commits never wait for it. When the reader
 * has nothing committed to give, a live feed registers one {@link LogReader#whenMoreCommitted()}
 * future; the committing thread that completes it only enqueues an async-callback event, and the
 * stage reads again on its own dispatcher. No polling, no timer.
 */
public final class ChangeFeedStage extends GraphStage<SourceShape<LogRecord>> {
  private final Supplier<LogView> log;
  private final ReadRequest from;
  private final boolean live;
  private final Outlet<LogRecord> out = Outlet.create("ChangeFeed.out");
  private final SourceShape<LogRecord> shape = SourceShape.of(out);

  public ChangeFeedStage(Supplier<LogView> log, ReadRequest from, boolean live) {
    this.log = log;
    this.from = from;
    this.live = live;
  }

  @Override
  public SourceShape<LogRecord> shape() {
    return shape;
  }

  @Override
  public Attributes initialAttributes() {
    return Attributes.name(live ? "changeFeedLive" : "changeFeedCurrent");
  }

  @Override
  public GraphStageLogic createLogic(Attributes inheritedAttributes) {
    return new GraphStageLogic(shape) {
      private LogReader reader;
      private AsyncCallback<Throwable> moreCommitted;
      private boolean waiting;

      {
        setHandler(out, new OutHandler() {
          @Override
          public void onPull() {
            read();
          }
        });
      }

      @Override
      public void preStart() {
        moreCommitted = createAsyncCallback(this::onMoreCommitted);
        try {
          reader = log.get().reader(from); // per materialization: the same Source can run many times
        } catch (RuntimeException e) {
          failStage(e);
        }
      }

      @Override
      public void postStop() {
        if (reader != null) {
          reader.close();
        }
      }

      private void read() {
        if (waiting) {
          return;
        }
        try {
          LogRecord record = reader.next();
          if (record != null) {
            push(out, record);
          } else if (!live || reader.isFinished()) {
            completeStage();
          } else {
            waiting = true;
            // Completes on a committing thread, or here if already complete: either way it only enqueues.
            reader.whenMoreCommitted().whenComplete((ok, err) -> moreCommitted.invoke(err));
          }
        } catch (RuntimeException e) {
          // A corrupt frame or a closed log: the stream fails with the typed error (handed to
          // downstream, not logged here; the reader has already moved past a corrupt frame).
          failStage(e);
        }
      }

      private void onMoreCommitted(Throwable err) {
        waiting = false;
        if (err != null) {
          failStage(err instanceof CompletionException && err.getCause() != null ? err.getCause() : err);
        } else if (isAvailable(out)) {
          read();
        }
      }
    };
  }
}
