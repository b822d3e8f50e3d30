package io.commitlane.bench.read;

import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.DatabaseProtocol.Get;
import io.commitlane.actors.DatabaseProtocol.MultiGet;
import io.commitlane.actors.DatabaseProtocol.Page;
import io.commitlane.actors.DatabaseProtocol.ReadReply;
import io.commitlane.actors.DatabaseProtocol.Scan;
import io.commitlane.actors.DatabaseProtocol.ScanReply;
import io.commitlane.actors.DatabaseProtocol.Values;
import io.commitlane.actors.Key;
import io.commitlane.actors.ScanRange;
import io.commitlane.actors.stream.RangeSource;
import io.commitlane.bench.harness.BenchSystem;
import io.commitlane.storage.KeyRange;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.stream.javadsl.Sink;

/**
 * commitlane's reads through its actor protocol ({@code Get}, {@code MultiGet}, {@code Scan}
 * pages of up to {@value #PAGE} entries, asked from the bench thread and awaited) or, with {@code
 * stream}, the full scan as a {@link RangeSource} in pages of {@value #PAGE} (the stream peer
 * runs that row only: a stream materialized per short range would measure materialization).
 */
final class CommitlaneProtocolReadPeer implements ReadPeer {
  static final int PAGE = 1000;
  private static final Duration ASK = Duration.ofSeconds(30);

  private final boolean stream;

  CommitlaneProtocolReadPeer(boolean stream) {
    this.stream = stream;
  }

  @Override
  public String name() {
    return stream ? "commitlane RangeSource" : "commitlane protocol";
  }

  @Override
  public boolean supports(ReadRow row) {
    return !stream || row == ReadRow.FULL_SCAN; // a stream per short range measures materialization, not reading
  }

  @Override
  public Loaded load(Path dir, int keys, byte[] value) throws Exception {
    ActorSystem<Void> system = BenchSystem.start("reads", BenchSystem.config());
    CommitlaneDatabase db = Commitlane.get(system).open(dir);
    CommitlaneReadPeer.load(db.storage(), keys, value);
    return new Loaded() {
      @Override
      public Reader reader() {
        return stream ? new StreamReader(db, system) : new ProtocolReader(db, system);
      }

      @Override
      public void close() throws Exception {
        db.close();
        BenchSystem.stop(system);
      }
    };
  }

  private record ProtocolReader(CommitlaneDatabase db, ActorSystem<Void> system) implements Reader {
    @Override
    public int get(byte[] key) throws Exception {
      ReadReply r = AskPattern.<io.commitlane.actors.DatabaseProtocol.Request, ReadReply>ask(db.ref(),
          to -> new Get(Key.of(key), 0, to), ASK, system.scheduler()).toCompletableFuture().get(30, TimeUnit.SECONDS);
      return ((Values) r).values().get(0).length;
    }

    @Override
    public int multiGet(byte[][] keys) throws Exception {
      List<Key> ks = new ArrayList<>(keys.length);
      for (byte[] k : keys) {
        ks.add(Key.of(k));
      }
      ReadReply r = AskPattern.<io.commitlane.actors.DatabaseProtocol.Request, ReadReply>ask(db.ref(),
          to -> new MultiGet(ks, 0, to), ASK, system.scheduler()).toCompletableFuture().get(30, TimeUnit.SECONDS);
      int n = 0;
      for (byte[] v : ((Values) r).values()) {
        n += v.length;
      }
      return n;
    }

    @Override
    public int range(byte[] from, byte[] to) throws Exception {
      ScanRange range = ScanRange.all(null).from(from).to(to);
      int n = 0;
      byte[] after = null;
      while (true) {
        byte[] continuation = after;
        ScanReply r = AskPattern.<io.commitlane.actors.DatabaseProtocol.Request, ScanReply>ask(db.ref(),
            replyTo -> new Scan(range, PAGE, continuation, 0, replyTo), ASK, system.scheduler())
            .toCompletableFuture().get(30, TimeUnit.SECONDS);
        Page page = (Page) r;
        n += page.entries().size();
        if (page.last()) {
          return n;
        }
        after = page.continuation();
      }
    }
  }

  private record StreamReader(CommitlaneDatabase db, ActorSystem<Void> system) implements Reader {
    @Override
    public int get(byte[] key) {
      throw new IllegalStateException("the stream peer reads ranges only");
    }

    @Override
    public int multiGet(byte[][] keys) {
      throw new IllegalStateException("the stream peer reads ranges only");
    }

    @Override
    public int range(byte[] from, byte[] to) throws Exception {
      return RangeSource.of(db, KeyRange.between(from, to), PAGE)
          .runWith(Sink.fold(0, (n, kv) -> n + 1), system).toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
  }
}
