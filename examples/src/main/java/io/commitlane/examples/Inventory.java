package io.commitlane.examples;

import io.commitlane.actors.DatabaseProtocol;
import io.commitlane.actors.DatabaseProtocol.Committed;
import io.commitlane.actors.DatabaseProtocol.Conflicted;
import io.commitlane.actors.DatabaseProtocol.ReadRefused;
import io.commitlane.actors.DatabaseProtocol.ReadReply;
import io.commitlane.actors.DatabaseProtocol.RefusedReply;
import io.commitlane.actors.DatabaseProtocol.Values;
import io.commitlane.actors.DatabaseProtocol.WriteRefused;
import io.commitlane.actors.DatabaseProtocol.WriteReply;
import io.commitlane.actors.Expectation;
import io.commitlane.actors.Key;
import io.commitlane.actors.LogEntries;
import io.commitlane.actors.Mutation;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * A stock-keeping service as a typed actor that holds nothing but the database's reference. A
 * reservation reads the item's stock, then writes the new count with a conditional write that
 * expects the count it read; if another reservation got there first, the conflict says what the
 * stock is now, and the reservation tries again from there. Every change also goes to the
 * {@code inventory} transaction log, which a change feed can follow.
 */
public final class Inventory extends AbstractBehavior<Inventory.Command> {
  /** What the service does. */
  public sealed interface Command permits Restock, Reserve, GetStock, WriteDone, ReadDone {}

  /** Add {@code quantity} units of {@code item}. */
  public record Restock(String item, long quantity, ActorRef<Result> replyTo) implements Command {}

  /** Take {@code quantity} units of {@code item} if there are that many. */
  public record Reserve(String item, long quantity, ActorRef<Result> replyTo) implements Command {}

  /** How many units of {@code item} there are. */
  public record GetStock(String item, ActorRef<Result> replyTo) implements Command {}

  /** The answers. */
  public sealed interface Result permits Stock, OutOfStock, Unavailable {}

  /** {@code item} has {@code units} now (after the change, for a restock or reservation). */
  public record Stock(String item, long units) implements Result {}

  /** Fewer than asked for: nothing was taken. */
  public record OutOfStock(String item, long units) implements Result {}

  /** The database could not do it (closed, overloaded, failed): nothing was changed. */
  public record Unavailable(String item, String why) implements Result {}

  private record WriteDone(WriteReply reply) implements Command {}

  private record ReadDone(ReadReply reply) implements Command {}

  /** A change in progress: the stored count it expects (null: absent), and the change it makes. */
  private record Pending(String item, long delta, byte[] expected, ActorRef<Result> replyTo, int attempts) {
    Pending from(byte[] current) {
      return new Pending(item, delta, current, replyTo, attempts + 1);
    }
  }

  private static final int MAX_ATTEMPTS = 16;

  private final ActorRef<DatabaseProtocol.Request> database;
  private final ActorRef<WriteReply> writes;
  private final ActorRef<ReadReply> reads;
  private final Map<Long, Pending> pending = new HashMap<>();
  private final Map<Long, GetStock> pendingReads = new HashMap<>();
  private final Map<Long, Pending> readsForChange = new HashMap<>();
  private long nextCorrelation;

  private Inventory(ActorContext<Command> ctx, ActorRef<DatabaseProtocol.Request> database) {
    super(ctx);
    this.database = database;
    this.writes = ctx.messageAdapter(WriteReply.class, WriteDone::new);
    this.reads = ctx.messageAdapter(ReadReply.class, ReadDone::new);
  }

  /** The service, over the database behind {@code database}. */
  public static Behavior<Command> create(ActorRef<DatabaseProtocol.Request> database) {
    return Behaviors.setup(ctx -> new Inventory(ctx, database));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Restock.class, this::onRestock)
        .onMessage(Reserve.class, this::onReserve)
        .onMessage(GetStock.class, this::onGetStock)
        .onMessage(ReadDone.class, this::onReadDone)
        .onMessage(WriteDone.class, this::onWriteDone)
        .build();
  }

  private Behavior<Command> onRestock(Restock r) {
    read(new Pending(r.item(), r.quantity(), null, r.replyTo(), 0));
    return this;
  }

  private Behavior<Command> onReserve(Reserve r) {
    read(new Pending(r.item(), -r.quantity(), null, r.replyTo(), 0));
    return this;
  }

  private Behavior<Command> onGetStock(GetStock g) {
    long c = ++nextCorrelation;
    pendingReads.put(c, g);
    database.tell(new DatabaseProtocol.Get(Key.of(key(g.item())), c, reads));
    return this;
  }

  /** Read the current count, then change it from there. */
  private void read(Pending p) {
    long c = ++nextCorrelation;
    readsForChange.put(c, p);
    database.tell(new DatabaseProtocol.Get(Key.of(key(p.item())), c, reads));
  }

  /** A read's reply: the adapter of reads gets only replies to reads, refusals included. */
  private Behavior<Command> onReadDone(ReadDone d) {
    long c = d.reply().correlation();
    GetStock query = pendingReads.remove(c);
    if (query != null) {
      query.replyTo().tell(d.reply() instanceof Values v ? new Stock(query.item(), units(v.values().get(0)))
          : new Unavailable(query.item(), why((ReadRefused) d.reply())));
      return this;
    }
    Pending p = readsForChange.remove(c);
    if (d.reply() instanceof Values v) {
      change(new Pending(p.item(), p.delta(), v.values().get(0), p.replyTo(), p.attempts()));
    } else {
      p.replyTo().tell(new Unavailable(p.item(), why((ReadRefused) d.reply())));
    }
    return this;
  }

  /** Write {@code expected + delta} if the item still holds {@code expected}. */
  private void change(Pending p) {
    long now = units(p.expected());
    long next = now + p.delta();
    if (next < 0) {
      p.replyTo().tell(new OutOfStock(p.item(), now));
      return;
    }
    byte[] key = key(p.item());
    long c = ++nextCorrelation;
    pending.put(c, p);
    database.tell(new DatabaseProtocol.ConditionalWrite(
        List.of(new Expectation(null, key, p.expected())),
        List.of(Mutation.put(key, bytes(next))),
        LogEntries.of("inventory", (p.item() + " " + (p.delta() >= 0 ? "+" : "") + p.delta()).getBytes(StandardCharsets.UTF_8)),
        c, writes));
  }

  /** A write's reply: the adapter of writes gets only replies to writes, refusals included. */
  private Behavior<Command> onWriteDone(WriteDone d) {
    Pending p = pending.remove(d.reply().correlation());
    if (d.reply() instanceof Committed) {
      p.replyTo().tell(new Stock(p.item(), units(p.expected()) + p.delta()));
    } else if (d.reply() instanceof WriteRefused refused) {
      p.replyTo().tell(new Unavailable(p.item(), why(refused)));  // nothing was written
    } else if (d.reply() instanceof Conflicted c && p.attempts() + 1 < MAX_ATTEMPTS) {
      // Someone changed the count first: start again from what it holds now (the conflict says).
      if (c.actual().isEmpty()) {
        read(p.from(null));
      } else {
        change(p.from(c.actual().get(0).value()));
      }
    } else {
      p.replyTo().tell(new Unavailable(p.item(), "still conflicting after " + MAX_ATTEMPTS + " attempts; nothing was written"));
    }
    return this;
  }

  /** Why the database did not serve a request: the refusal's reason and message. */
  private static String why(RefusedReply refused) {
    return (refused.refusal() instanceof DatabaseProtocol.Failed f ? f.reason().name()
        : ((DatabaseProtocol.Unavailable) refused.refusal()).reason().name()) + ": " + refused.message();
  }

  private static byte[] key(String item) {
    return ("stock/" + item).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] bytes(long units) {
    return ByteBuffer.allocate(Long.BYTES).putLong(units).array();
  }

  private static long units(byte[] value) {
    return value == null ? 0 : ByteBuffer.wrap(value).getLong();
  }
}
