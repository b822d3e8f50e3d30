package io.commitlane.actors.stream.internal;

import io.commitlane.actors.stream.Ingest;
import io.commitlane.actors.stream.IngestBatch;
import io.commitlane.actors.stream.IngestFailedException;
import io.commitlane.actors.stream.IngestTotals;
import io.commitlane.actors.stream.WriteFailedException;
import io.commitlane.actors.stream.WriteOutcome;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.AbruptStageTerminationException;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.Inlet;
import org.apache.pekko.stream.SinkShape;
import org.apache.pekko.stream.stage.AbstractGraphStageWithMaterializedValue;
import org.apache.pekko.stream.stage.GraphStageLogic;
import org.apache.pekko.stream.stage.InHandler;

/**
 * Adds up the batch outcomes of an ingestion into {@link IngestTotals}. It completes its stage
 * with the totals when the stream completes, and with an {@link IngestFailedException} carrying
 * the totals when it fails. The stage's future completes on the stream's dispatcher; {@code
 * *Async} stages attached to it without an executor run there too, never on the common pool.
 */
public final class IngestTotalsSink<T> extends AbstractGraphStageWithMaterializedValue<SinkShape<WriteOutcome<IngestBatch<T>>>, CompletionStage<IngestTotals>> {
  private final Inlet<WriteOutcome<IngestBatch<T>>> in = Inlet.create("Ingest.totals.in");
  private final SinkShape<WriteOutcome<IngestBatch<T>>> shape = SinkShape.of(in);

  @Override
  public SinkShape<WriteOutcome<IngestBatch<T>>> shape() {
    return shape;
  }

  @Override
  public Attributes initialAttributes() {
    return Attributes.name("ingestTotals");
  }

  /** A future whose default executor (for {@code *Async} stages without one) is the stream's dispatcher. */
  private static final class TotalsFuture extends CompletableFuture<IngestTotals> {
    private volatile Executor executor;

    @Override
    public Executor defaultExecutor() {
      Executor e = executor;
      // Set in preStart, before anything can complete this future; the lambda defers the lookup.
      return e != null ? e : r -> executor.execute(r);
    }

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
      return new DependentFuture<>(this);
    }
  }

  private static final class DependentFuture<U> extends CompletableFuture<U> {
    private final TotalsFuture root;

    DependentFuture(TotalsFuture root) {
      this.root = root;
    }

    @Override
    public Executor defaultExecutor() {
      return root.defaultExecutor();
    }

    @Override
    public <V> CompletableFuture<V> newIncompleteFuture() {
      return new DependentFuture<>(root);
    }
  }

  @Override
  public Pair<GraphStageLogic, CompletionStage<IngestTotals>> createLogicAndMaterializedValuePair(Attributes inheritedAttributes) {
    TotalsFuture totals = new TotalsFuture();
    GraphStageLogic logic = new GraphStageLogic(shape) {
      private long records;
      private long bytes;
      private long transactions;
      private long failedRecords;
      private long failedTransactions;
      private long committedPrefix;
      private boolean prefixOpen = true;
      private Throwable firstFailure;

      {
        setHandler(in, new InHandler() {
          @Override
          public void onPush() {
            add(grab(in));
            pull(in);
          }

          @Override
          public void onUpstreamFinish() {
            totals.complete(snapshot());
            completeStage();
          }

          @Override
          public void onUpstreamFailure(Throwable ex) {
            IngestBatch<?> failed = ex instanceof WriteFailedException w && w.correlation() instanceof IngestBatch<?> b ? b : null;
            totals.completeExceptionally(new IngestFailedException(snapshot(), failed, failed != null ? ex.getCause() : ex));
            failStage(ex);
          }
        });
      }

      @Override
      public void preStart() {
        totals.executor = materializer().executionContext();
        pull(in);
      }

      @Override
      public void postStop() {
        if (!totals.isDone()) {
          totals.completeExceptionally(new IngestFailedException(snapshot(), null, new AbruptStageTerminationException(this)));
        }
      }

      private void add(WriteOutcome<IngestBatch<T>> outcome) {
        IngestBatch<T> batch = outcome.correlation();
        if (outcome instanceof WriteOutcome.Failed<IngestBatch<T>> f) {
          failedRecords += batch.size();
          failedTransactions++;
          prefixOpen = false;
          if (firstFailure == null) {
            firstFailure = f.cause();
          }
          return;
        }
        records += batch.size();
        bytes += batch.bytes();
        transactions++;
        if (prefixOpen && batch.firstRecord() == committedPrefix) {
          committedPrefix = batch.endRecord(); // outcomes arrive in batch order
        }
      }

      private IngestTotals snapshot() {
        return new IngestTotals(records, bytes, transactions, failedRecords, failedTransactions, committedPrefix, firstFailure);
      }
    };
    return Pair.create(logic, totals);
  }
}
