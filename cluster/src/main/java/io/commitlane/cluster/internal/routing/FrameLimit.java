package io.commitlane.cluster.internal.routing;

import io.commitlane.cluster.RequestTooLargeException;
import io.commitlane.actors.DatabaseProtocol;
import io.commitlane.actors.DatabaseProtocol.Command;
import io.commitlane.actors.Expectation;
import io.commitlane.actors.Key;
import io.commitlane.actors.LogEntries;
import io.commitlane.actors.Mutation;
import io.commitlane.actors.ScanRange;
import io.commitlane.actors.internal.protocol.ReplyLimit;
import java.util.List;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;

/**
 * The largest request that can reach a database on another node: Pekko's remote transport drops a
 * message larger than {@code pekko.remote.artery.advanced.maximum-frame-size} (logging it on the
 * sender only), so the caller would get no reply, time out, and send it again forever. A request
 * must fit the frame less {@link #MARGIN_BYTES}, measured as the transport would serialize it.
 *
 * <p>Any request is checked, wherever the database is owned now: it may move to another node
 * before the request reaches it. Most requests are far below the limit, and those are accepted on
 * an upper bound of their size without serializing them; only one near the limit is serialized.
 */
public final class FrameLimit {
  static final String SETTING = ReplyLimit.ARTERY_FRAME;
  /**
   * Room in a frame for what wraps the serialized request: the transport's header with the
   * recipient's and sender's paths and the class name, the sharding envelope with the database
   * name, and a reply-to path longer than the one measured. Replies keep the same room.
   */
  public static final int MARGIN_BYTES = ReplyLimit.MARGIN_BYTES;
  /** An upper bound of the CBOR encoding around one key, value or entry (field names, lengths, a store name is counted apart). */
  private static final int PER_ELEMENT_BYTES = 256;

  private final long frameBytes;
  private final Serialization serialization;

  public FrameLimit(ActorSystem<?> system) {
    this.frameBytes = system.settings().config().getBytes(SETTING);
    this.serialization = SerializationExtension.get(Adapter.toClassic(system));
  }

  long frameBytes() {
    return frameBytes;
  }

  /** Throws {@link RequestTooLargeException} if {@code request} for {@code database} cannot fit one frame. */
  public void check(String database, Command request) {
    Names.database(database); // a bad name is reported as such first
    long allowed = frameBytes - MARGIN_BYTES;
    if (upperBound(request) <= allowed) {
      return;
    }
    long bytes = serialization.serialize(request).get().length;
    if (bytes > allowed) {
      throw new RequestTooLargeException(database, bytes, frameBytes, MARGIN_BYTES);
    }
  }

  /** At least the request's serialized size: its bytes plus a generous allowance per element. */
  public static long upperBound(Command request) {
    long bound = 2 * PER_ELEMENT_BYTES; // the record itself, its correlation, request id and reply-to
    if (request instanceof DatabaseProtocol.Write w) {
      bound += mutations(w.mutations()) + log(w.log()) + requestId(w.requestId());
    } else if (request instanceof DatabaseProtocol.ConditionalWrite c) {
      bound += mutations(c.mutations()) + expectations(c.expected()) + log(c.log()) + requestId(c.requestId());
    } else if (request instanceof DatabaseProtocol.Scan s) {
      bound += range(s.range()) + (s.after() == null ? 0 : s.after().length);
    } else if (request instanceof DatabaseProtocol.Count c) {
      bound += range(c.range());
    } else if (request instanceof DatabaseProtocol.MultiGet m) {
      for (Key k : m.keys()) {
        bound += PER_ELEMENT_BYTES + length(k.store()) + k.key().length;
      }
    } else if (request instanceof DatabaseProtocol.Backup b) {
      bound += 3L * length(b.directory().toString()); // a path travels as a URI: escapes may triple it
    } else if (request instanceof DatabaseProtocol.Checkpoint c) {
      bound += 3L * length(c.target().toString());
    }
    return bound; // the other requests carry names and numbers only
  }

  private static long mutations(List<Mutation> mutations) {
    long bytes = 0;
    for (Mutation m : mutations) {
      bytes += PER_ELEMENT_BYTES + length(m.store()) + m.key().length + (m.value() == null ? 0 : m.value().length);
    }
    return bytes;
  }

  private static long range(ScanRange r) {
    return PER_ELEMENT_BYTES + length(r.store()) + (r.lower() == null ? 0 : r.lower().length)
        + (r.upper() == null ? 0 : r.upper().length);
  }

  private static long expectations(List<Expectation> expected) {
    long bytes = 0;
    for (Expectation e : expected) {
      bytes += PER_ELEMENT_BYTES + length(e.store()) + e.key().length + (e.value() == null ? 0 : e.value().length);
    }
    return bytes;
  }

  private static long log(LogEntries log) {
    if (log == null) {
      return 0;
    }
    long bytes = PER_ELEMENT_BYTES + length(log.log());
    for (byte[] entry : log.entries()) {
      bytes += PER_ELEMENT_BYTES + entry.length;
    }
    return bytes;
  }

  private static long requestId(io.commitlane.actors.RequestId id) {
    return id == null ? 0 : length(id.value());
  }

  /** A bound of a string's UTF-8 length. */
  private static long length(String s) {
    return s == null ? 0 : 3L * s.length();
  }
}
