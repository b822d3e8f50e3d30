package io.commitlane.persistence;

import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.persistence.AtomicWrite;
import org.apache.pekko.persistence.Persistence;
import org.apache.pekko.persistence.PersistentRepr;
import scala.jdk.javaapi.CollectionConverters;

/** Talks to the journal actor as a persistent actor does (the TCK's way), through a typed probe. */
final class JournalProtocol {
  final TestProbe<Object> probe;
  final ActorRef journal;
  private final ActorRef replyTo;

  JournalProtocol(PluginSystem plugins) {
    this(plugins, null);
  }

  /** The journal of plugin id {@code pluginId} (null: the default journal). */
  JournalProtocol(PluginSystem plugins, String pluginId) {
    this.probe = plugins.kit.createTestProbe();
    this.replyTo = Adapter.toClassic(probe.getRef());
    this.journal = Persistence.get(plugins.system().classicSystem()).journalFor(pluginId, com.typesafe.config.ConfigFactory.empty());
  }

  static PersistentRepr event(String pid, long seq, Object payload) {
    return PersistentRepr.apply(payload, seq, pid, "", false, null, "writer-1");
  }

  static AtomicWrite atomic(PersistentRepr... events) {
    return new AtomicWrite(CollectionConverters.asScala(List.of(events)).toList());
  }

  void write(AtomicWrite... writes) {
    journal.tell(new org.apache.pekko.persistence.JournalProtocol.WriteMessages(
        CollectionConverters.asScala(List.<org.apache.pekko.persistence.PersistentEnvelope>of(writes)).toList(), replyTo, 1), replyTo);
  }

  /** Replay everything of {@code pid}; the replayed events' payloads, then the highest sequence number. */
  List<Object> replay(String pid) {
    journal.tell(new org.apache.pekko.persistence.JournalProtocol.ReplayMessages(1, Long.MAX_VALUE, Long.MAX_VALUE, pid, replyTo),
        replyTo);
    List<Object> out = new java.util.ArrayList<>();
    while (true) {
      Object m = probe.receiveMessage(Duration.ofSeconds(20));
      if (m instanceof org.apache.pekko.persistence.JournalProtocol.ReplayedMessage r) {
        out.add(r.persistent().payload());
      } else if (m instanceof org.apache.pekko.persistence.JournalProtocol.RecoverySuccess s) {
        out.add("highest=" + s.highestSequenceNr());
        return out;
      } else {
        out.add(m);
        return out;
      }
    }
  }

  <T> T expect(Class<T> type) {
    Object m = probe.receiveMessage(Duration.ofSeconds(20));
    if (!type.isInstance(m)) {
      throw new AssertionError("expected a " + type.getSimpleName() + ", got " + m);
    }
    return type.cast(m);
  }
}
