package io.commitlane.actors.internal.protocol;

import com.typesafe.config.Config;
import io.commitlane.actors.DatabaseProtocol.BackupRefused;
import io.commitlane.actors.DatabaseProtocol.BackupReply;
import io.commitlane.actors.DatabaseProtocol.CheckpointRefused;
import io.commitlane.actors.DatabaseProtocol.CheckpointReply;
import io.commitlane.actors.DatabaseProtocol.Committed;
import io.commitlane.actors.DatabaseProtocol.Conflicted;
import io.commitlane.actors.DatabaseProtocol.CountRefused;
import io.commitlane.actors.DatabaseProtocol.CountReply;
import io.commitlane.actors.DatabaseProtocol.Counted;
import io.commitlane.actors.DatabaseProtocol.DatabaseStats;
import io.commitlane.actors.DatabaseProtocol.Failed;
import io.commitlane.actors.DatabaseProtocol.FailureReason;
import io.commitlane.actors.DatabaseProtocol.FeedRefused;
import io.commitlane.actors.DatabaseProtocol.FeedReply;
import io.commitlane.actors.DatabaseProtocol.Page;
import io.commitlane.actors.DatabaseProtocol.ReadRefused;
import io.commitlane.actors.DatabaseProtocol.ReadReply;
import io.commitlane.actors.DatabaseProtocol.Refusal;
import io.commitlane.actors.DatabaseProtocol.RefusedReply;
import io.commitlane.actors.DatabaseProtocol.Reply;
import io.commitlane.actors.DatabaseProtocol.ScanRefused;
import io.commitlane.actors.DatabaseProtocol.ScanReply;
import io.commitlane.actors.DatabaseProtocol.StatsRefused;
import io.commitlane.actors.DatabaseProtocol.StatsReply;
import io.commitlane.actors.DatabaseProtocol.StoreCreated;
import io.commitlane.actors.DatabaseProtocol.StoreDropped;
import io.commitlane.actors.DatabaseProtocol.StoreRefused;
import io.commitlane.actors.DatabaseProtocol.StoreReply;
import io.commitlane.actors.DatabaseProtocol.Values;
import io.commitlane.actors.DatabaseProtocol.WriteRefused;
import io.commitlane.actors.DatabaseProtocol.WriteReply;
import io.commitlane.actors.Expectation;
import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.KeyValue;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;

/**
 * The most bytes a reply can carry to its recipient. Pekko's remote transport drops a message
 * larger than its frame ({@value #ARTERY_FRAME}), logging {@code OversizedPayloadException} on
 * the sending node only, so a caller on another node would wait for a reply that never comes and,
 * told that a missing reply is worth a retry, send the request again for ever. A reply to a
 * recipient on another node must therefore fit the frame less {@link #MARGIN_BYTES}, or it is
 * replaced by a {@link FailureReason#REPLY_TOO_LARGE} refusal that names the limit and what to
 * do. A reply to a local recipient crosses no transport and has no bound.
 *
 * <p>Most replies are far below the frame and pass on an upper bound of their size; only one near
 * the limit is serialized to be measured (as the transport would serialize it).
 *
 * <p>INTERNAL API: shared by the database actors of commitlane's modules; not for use outside them.
 */
@InternalApi
public final class ReplyLimit {
  /** Artery's frame: the largest message one node sends another. */
  public static final String ARTERY_FRAME = "pekko.remote.artery.advanced.maximum-frame-size";
  private static final String ARTERY_ENABLED = "pekko.remote.artery.enabled";
  private static final String CLASSIC_FRAME = "pekko.remote.classic.netty.tcp.maximum-frame-size";
  /**
   * Room in a frame for what wraps a serialized message: the transport's header with the
   * recipient's and sender's paths and the class name (and, for a request, the sharding envelope
   * with the database name).
   */
  public static final int MARGIN_BYTES = 4096;
  /**
   * An upper bound of what a serializer adds around one key, value or entry of a reply (CBOR field
   * names and lengths take about 20 bytes).
   */
  public static final int PER_ELEMENT_BYTES = RangePages.ENTRY_OVERHEAD_BYTES;
  /** An upper bound of a reply's own fields besides its keys, values and strings. */
  private static final int PER_REPLY_BYTES = 1024;
  /** An upper bound of the names and numbers of {@link DatabaseStats}' 26 fields. */
  private static final int STATS_FIELDS_BYTES = 2048;

  /** Where the frame is set, or null when the actor system has no remote transport. */
  private final String setting;
  private final long frameBytes;
  private final ActorSystem<?> system;
  private volatile Serialization serialization;

  private ReplyLimit(ActorSystem<?> system, String setting, long frameBytes) {
    this.system = system;
    this.setting = setting;
    this.frameBytes = frameBytes;
  }

  /** The limit of {@code system}'s remote transport (none without one). */
  public static ReplyLimit of(ActorSystem<?> system) {
    Config config = system.settings().config();
    boolean artery = !config.hasPath(ARTERY_ENABLED) || config.getBoolean(ARTERY_ENABLED);
    String setting = artery ? ARTERY_FRAME : CLASSIC_FRAME;
    if (!config.hasPath(setting)) {
      return new ReplyLimit(system, null, Long.MAX_VALUE);
    }
    return new ReplyLimit(system, setting, config.getBytes(setting));
  }

  /** The frame's bytes, or {@link Long#MAX_VALUE} without a remote transport. */
  public long frameBytes() {
    return frameBytes;
  }

  /**
   * The most bytes of keys and values (with {@link #PER_ELEMENT_BYTES} each) a reply to {@code
   * recipient} may carry: the frame less the margin and the reply's own fields when it is on
   * another node, {@link Long#MAX_VALUE} when it is local.
   */
  public long bytesFor(ActorRef<?> recipient) {
    return isLocal(recipient) ? Long.MAX_VALUE : frameBytes - MARGIN_BYTES - PER_REPLY_BYTES;
  }

  /** Whether a message to {@code recipient} crosses no transport. */
  public boolean isLocal(ActorRef<?> recipient) {
    return setting == null || recipient.path().address().hasLocalScope();
  }

  /**
   * Tell {@code recipient} {@code reply} if it can reach it, else a refusal of the same reply type
   * that says what was too large, the limit, and what to do.
   */
  public <R extends Reply> void tell(ActorRef<R> recipient, R reply) {
    recipient.tell(fit(recipient, reply));
  }

  /** {@code reply}, or the refusal {@link #tell} sends instead. */
  @SuppressWarnings("unchecked")
  public <R extends Reply> R fit(ActorRef<? super R> recipient, R reply) {
    if (isLocal(recipient)) {
      return reply;
    }
    long allowed = frameBytes - MARGIN_BYTES;
    if (upperBound(reply) <= allowed) {
      return reply;
    }
    long bytes = serializedSize(reply);
    if (bytes <= allowed) {
      return reply;
    }
    return (R) tooLarge(reply, bytes, recipient);
  }

  /** The refusal, of {@code reply}'s own family, of a reply of {@code bytes} that cannot reach {@code recipient}. */
  private Reply tooLarge(Reply reply, long bytes, ActorRef<?> recipient) {
    Failed why;
    if (reply instanceof Values v && v.values().size() == 1) {
      why = refusal(recipient, "the value read is " + bytes + " bytes",
          "A value this large can be read only on the node that holds the database");
    } else if (reply instanceof Values v) {
      why = refusal(recipient, "the " + v.values().size() + " values read are " + bytes + " bytes", "Read fewer keys per MultiGet");
    } else if (reply instanceof Conflicted c) {
      why = refusal(recipient, "the write conflicted (" + c.cause() + ") and nothing was written, but what its "
          + c.actual().size() + " expected keys hold now is " + bytes + " bytes",
          "Read the keys with a Get each and send the write again expecting what they hold");
    } else if (reply instanceof Page p) {
      why = refusal(recipient, "the page of " + p.entries().size() + " entries is " + bytes + " bytes",
          "Ask for fewer entries per page");
    } else {
      why = refusal(recipient, "the " + reply.getClass().getSimpleName() + " reply is " + bytes + " bytes", "");
    }
    return refusedAs(reply, why);
  }

  /**
   * Why a reply to {@code recipient} that would not fit is refused: {@code what} says what was too
   * large and how large, {@code advice} what to do besides raising the frame (may be empty).
   */
  public Failed refusal(ActorRef<?> recipient, String what, String advice) {
    String raise = "raise " + setting + " on every node";
    return new Failed(FailureReason.REPLY_TOO_LARGE, what + ", more than one message to " + recipient.path().address()
        + " can carry (" + setting + " is " + frameBytes + " bytes, less " + MARGIN_BYTES + " for headers). "
        + (advice.isEmpty() ? "R" + raise.substring(1) : advice + ", or " + raise), false);
  }

  /** The refused reply of {@code reply}'s family (each reply belongs to exactly one), with its correlation. */
  public static RefusedReply refusedAs(Reply reply, Refusal refusal) {
    long c = reply.correlation();
    if (reply instanceof WriteReply) {
      return new WriteRefused(c, refusal);
    } else if (reply instanceof ReadReply) {
      return new ReadRefused(c, refusal);
    } else if (reply instanceof ScanReply) {
      return new ScanRefused(c, refusal);
    } else if (reply instanceof CountReply) {
      return new CountRefused(c, refusal);
    } else if (reply instanceof StoreReply) {
      return new StoreRefused(c, refusal);
    } else if (reply instanceof StatsReply) {
      return new StatsRefused(c, refusal);
    } else if (reply instanceof FeedReply) {
      return new FeedRefused(c, refusal);
    } else if (reply instanceof BackupReply) {
      return new BackupRefused(c, refusal);
    } else if (reply instanceof CheckpointReply) {
      return new CheckpointRefused(c, refusal);
    }
    // Reply is sealed; Java 17 cannot switch over it exhaustively (ReplyFamiliesTest checks every family has a branch).
    throw new IllegalArgumentException("not a reply of a known family: " + reply);
  }

  /** The setting that bounds replies, or null without a remote transport. */
  public String setting() {
    return setting;
  }

  private long serializedSize(Reply reply) {
    Serialization s = serialization;
    if (s == null) {
      s = SerializationExtension.get(Adapter.toClassic(system));
      serialization = s;
    }
    scala.util.Try<byte[]> bytes = s.serialize(reply);
    // A reply that cannot be serialized fails in the transport with its own error; this bound is not its judge.
    return bytes.isSuccess() ? bytes.get().length : 0;
  }

  /**
   * At least {@code reply}'s serialized size: its keys, values and strings plus a generous
   * allowance per element; {@link Long#MAX_VALUE} (measure it) for the replies whose size is not
   * bounded here (rare and slow ones: backups, checkpoints, change feeds).
   */
  public static long upperBound(Reply reply) {
    long bound = PER_REPLY_BYTES;
    if (reply instanceof Values v) {
      for (byte[] value : v.values()) {
        bound += PER_ELEMENT_BYTES + (value == null ? 0 : value.length);
      }
    } else if (reply instanceof Page p) {
      for (KeyValue kv : p.entries()) {
        bound += PER_ELEMENT_BYTES + kv.key().length + (kv.value() == null ? 0 : kv.value().length);
      }
      bound += p.continuation() == null ? 0 : p.continuation().length;
    } else if (reply instanceof Conflicted c) {
      for (Expectation e : c.actual()) {
        bound += PER_ELEMENT_BYTES + length(e.store()) + e.key().length + (e.value() == null ? 0 : e.value().length);
      }
    } else if (reply instanceof RefusedReply r) {
      bound += length(r.message());
    } else if (reply instanceof StoreCreated c) {
      bound += length(c.name());
    } else if (reply instanceof StoreDropped d) {
      bound += length(d.name());
    } else if (reply instanceof DatabaseStats d) {
      bound += STATS_FIELDS_BYTES + length(d.database()) + length(d.owner()) + length(d.health()) + length(d.healthError());
    } else if (!(reply instanceof Committed || reply instanceof Counted)) {
      return Long.MAX_VALUE;
    }
    return bound;
  }

  /** A bound of a string's UTF-8 length. */
  private static long length(String s) {
    return s == null ? 0 : 3L * s.length();
  }
}
