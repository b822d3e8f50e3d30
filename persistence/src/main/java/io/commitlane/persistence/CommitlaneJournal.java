package io.commitlane.persistence;

import com.typesafe.config.Config;
import io.commitlane.persistence.internal.journal.EventJournal;
import io.commitlane.persistence.internal.plugin.PluginStart;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.pekko.persistence.AtomicWrite;
import org.apache.pekko.persistence.PersistentRepr;
import org.apache.pekko.persistence.journal.japi.AsyncWriteJournal;
import scala.concurrent.Future;
import scala.jdk.javaapi.FutureConverters;

/**
 * The journal plugin: configure {@code pekko.persistence.journal.plugin = "commitlane-persistence.journal"}. Pekko
 * creates it; see docs/persistence.md.
 *
 * <p>Each {@code persist}/{@code persistAll} is one commit, conditional on the persistence id's highest sequence
 * number (one writer per id); the writes of one batch commit concurrently on the database's commit executors, never
 * one after another on a blocked thread. A write that cannot be stored (an unserializable event, an id or tag that
 * cannot be a key, sequence numbers Pekko never sends, a write larger than one commit) is rejected alone: Pekko
 * calls {@code onPersistRejected} and the journal goes on. Replay is one range read per page; the highest sequence
 * number is one key, kept when every event is deleted.
 */
public final class CommitlaneJournal extends AsyncWriteJournal {
  private final PluginStart<EventJournal> start;

  public CommitlaneJournal(Config config, String configPath) {
    start = new PluginStart<>(context().system(), configPath,
        c -> new EventJournal(c.store(), c.codec(), c.settings().pageSize()));
  }

  @Override
  public Future<Iterable<Optional<Exception>>> doAsyncWriteMessages(Iterable<AtomicWrite> messages) {
    return FutureConverters.asScala(start.with(j -> j.write(messages).thenApply(results -> (Iterable<Optional<Exception>>) results)));
  }

  @Override
  public Future<Void> doAsyncDeleteMessagesTo(String persistenceId, long toSequenceNr) {
    return FutureConverters.asScala(start.with(j -> j.delete(persistenceId, toSequenceNr)));
  }

  @Override
  public Future<Void> doAsyncReplayMessages(String persistenceId, long fromSequenceNr, long toSequenceNr, long max,
      Consumer<PersistentRepr> replayCallback) {
    return FutureConverters.asScala(start.with(j -> j.replay(persistenceId, fromSequenceNr, toSequenceNr, max, replayCallback)));
  }

  @Override
  public Future<Long> doAsyncReadHighestSequenceNr(String persistenceId, long fromSequenceNr) {
    return FutureConverters.asScala(start.with(j -> j.highestSequenceNr(persistenceId)));
  }

  @Override
  public void postStop() throws Exception {
    start.stop();
    super.postStop();
  }
}
