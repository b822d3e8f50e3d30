package io.commitlane.persistence.internal.query;

import io.commitlane.actors.internal.pipeline.Failures;
import io.commitlane.annotation.InternalApi;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.pekko.Done;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.Outlet;
import org.apache.pekko.stream.SourceShape;
import org.apache.pekko.stream.stage.AbstractOutHandler;
import org.apache.pekko.stream.stage.AsyncCallback;
import org.apache.pekko.stream.stage.GraphStage;
import org.apache.pekko.stream.stage.GraphStageLogic;

/**
 * INTERNAL API. The source behind every query: reads pages of an index from a cursor, and, when live, waits for a
 * commit signal once it has caught up, instead of polling on an interval.
 *
 * <p><b>Backpressure.</b> A page is read only when downstream pulls and the previous page is emitted: at most one
 * page in memory, one read in flight. Reads run on the plugin's executor, never on the stream's actor.
 *
 * <p><b>No lost wake-up.</b> The signal subscription is made before the first read. A signal during a read marks the
 * source stale, so it reads again as soon as that read completes; a signal while it waits starts a read if
 * downstream wants an element. A current (finite) query completes when a page reaches its bound.
 *
 * <p><b>One run, one bound.</b> Each materialization gets its own reader (which fixes the run's bound on its first
 * read) and, for a current query, first waits for the store's read barrier: the bound then includes every write
 * acknowledged before the run started, on whichever node it was made.
 *
 * @param <T> the elements
 */
@InternalApi
public final class FollowSource<T> extends GraphStage<SourceShape<T>> {
  /**
   * One page: the elements to emit, the cursor after it, whether it reached the end of what is there now, and whether
   * it stopped before an entry it may read only after the next commit signal (a current query too waits for it).
   */
  public record Page<T>(List<T> elements, Object next, boolean caughtUp, boolean waiting) {
    public Page(List<T> elements, Object next, boolean caughtUp) {
      this(elements, next, caughtUp, false);
    }
  }

  /** A cursor after which there is nothing more to read, live or not: the source completes once it emitted the rest. */
  public static final Object END = new Object();

  /** Reads one page from {@code cursor} (blocking; runs on the executor). */
  public interface Reader<T> {
    Page<T> read(Object cursor);
  }

  private final Outlet<T> out = Outlet.create("FollowSource.out");
  private final SourceShape<T> shape = SourceShape.of(out);
  private final Object start;
  private final Supplier<Reader<T>> readers;
  private final Executor executor;
  /** What a run's first read waits for, or null. */
  private final Supplier<CompletionStage<Void>> barrier;
  /** Subscribes a signal listener and gives the unsubscribe; null for a current query. */
  private final Function<Runnable, Runnable> subscribe;
  private final boolean live;

  /**
   * @param start the cursor of the first read
   * @param readers makes one run's reader (a query's source may be materialized more than once, each run with its own
   *     bound)
   * @param subscribe subscribes a commit signal listener and gives the unsubscribe (null: none, for a current query
   *     whose pages never wait)
   * @param live whether the query follows new commits once caught up, or completes
   * @param barrier what a run's first read waits for (a current query's {@code PluginStore#readBarrier}), or null
   */
  public FollowSource(Object start, Supplier<Reader<T>> readers, Executor executor, Function<Runnable, Runnable> subscribe,
      boolean live, Supplier<CompletionStage<Void>> barrier) {
    this.start = start;
    this.readers = readers;
    this.executor = executor;
    this.subscribe = subscribe;
    this.live = live;
    this.barrier = barrier;
  }

  @Override
  public SourceShape<T> shape() {
    return shape;
  }

  @Override
  public GraphStageLogic createLogic(Attributes attributes) {
    return new GraphStageLogic(shape) {
      private final ArrayDeque<T> buffer = new ArrayDeque<>();
      private final Reader<T> reader = readers.get();
      private Object cursor = start;
      private boolean started;
      private boolean reading;
      /** Something may have committed since the last read that caught up. */
      private boolean stale = true;
      private boolean caughtUp;
      private boolean waiting;
      private Runnable unsubscribe;
      private AsyncCallback<Page<T>> pageRead;
      private AsyncCallback<Throwable> readFailed;
      private AsyncCallback<Done> signalled;

      {
        setHandler(out, new AbstractOutHandler() {
          @Override
          public void onPull() {
            if (!buffer.isEmpty()) {
              push(out, buffer.poll());
            } else {
              next();
            }
          }
        });
      }

      @Override
      public void preStart() {
        pageRead = createAsyncCallback(this::onPage);
        readFailed = createAsyncCallback(this::failStage);
        signalled = createAsyncCallback(d -> {
          stale = true;
          if (!reading && buffer.isEmpty() && isAvailable(out)) {
            next();
          }
        });
        if (subscribe != null) {
          unsubscribe = subscribe.apply(() -> signalled.invoke(Done.getInstance()));
        }
      }

      private void next() {
        if (reading) {
          return;
        }
        if (cursor == END || (caughtUp && !live && !waiting)) {
          completeStage();
        } else if (!caughtUp || stale) {
          read();
        }
      }

      private void read() {
        reading = true;
        stale = false;
        Object from = cursor;
        CompletionStage<Page<T>> read;
        if (!started && barrier != null) {
          CompletionStage<Void> ready;
          try {
            ready = barrier.get();
          } catch (RuntimeException e) {
            ready = CompletableFuture.failedFuture(e);
          }
          read = ready.thenApplyAsync(v -> reader.read(from), executor);
        } else {
          read = CompletableFuture.supplyAsync(() -> reader.read(from), executor);
        }
        started = true;
        read.whenComplete((page, e) -> {
          if (e == null) {
            pageRead.invoke(page);
          } else {
            readFailed.invoke(Failures.unwrap(e));
          }
        });
      }

      private void onPage(Page<T> page) {
        reading = false;
        cursor = page.next();
        caughtUp = page.caughtUp();
        waiting = page.waiting();
        buffer.addAll(page.elements());
        if (isAvailable(out)) {
          if (!buffer.isEmpty()) {
            push(out, buffer.poll());
          } else {
            next();
          }
        }
      }

      @Override
      public void postStop() {
        if (unsubscribe != null) {
          unsubscribe.run();
        }
      }
    };
  }
}
