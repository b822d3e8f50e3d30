package io.commitlane.persistence.javadsl;

import io.commitlane.persistence.internal.query.Offsets;
import io.commitlane.persistence.internal.query.EventQueries;
import io.commitlane.persistence.internal.plugin.PluginStart;
import io.commitlane.persistence.internal.query.Sources;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.NotUsed;
import org.apache.pekko.persistence.query.EventEnvelope;
import org.apache.pekko.persistence.query.Offset;
import org.apache.pekko.persistence.query.javadsl.CurrentEventsByPersistenceIdQuery;
import org.apache.pekko.persistence.query.javadsl.CurrentEventsByTagQuery;
import org.apache.pekko.persistence.query.javadsl.CurrentLastSequenceNumberByPersistenceIdQuery;
import org.apache.pekko.persistence.query.javadsl.CurrentPersistenceIdsQuery;
import org.apache.pekko.persistence.query.javadsl.EventsByPersistenceIdQuery;
import org.apache.pekko.persistence.query.javadsl.EventsByTagQuery;
import org.apache.pekko.persistence.query.javadsl.PersistenceIdsQuery;
import org.apache.pekko.persistence.query.javadsl.ReadJournal;
import org.apache.pekko.stream.javadsl.Source;

/**
 * The read journal, Java API:
 * {@code PersistenceQuery.get(system).getReadJournalFor(CommitlaneReadJournal.class, CommitlaneReadJournal.IDENTIFIER)}.
 *
 * <p>Offsets are commit positions ({@code Offset.sequence(p)}), the same across restarts: a query started from the
 * offset of the last envelope a consumer handled emits exactly what followed it, no gap and no duplicate. Live
 * queries are woken by commits, never by a polling interval, and read a page only when downstream pulls. See
 * docs/persistence.md.
 */
public final class CommitlaneReadJournal implements ReadJournal, EventsByTagQuery, CurrentEventsByTagQuery,
    EventsByPersistenceIdQuery, CurrentEventsByPersistenceIdQuery, PersistenceIdsQuery, CurrentPersistenceIdsQuery,
    CurrentLastSequenceNumberByPersistenceIdQuery {
  /** The plugin id of the read journal in reference.conf. */
  public static final String IDENTIFIER = "commitlane-persistence.query";

  private final PluginStart<EventQueries> start;

  /** Made by {@link io.commitlane.persistence.CommitlaneReadJournalProvider}. */
  public CommitlaneReadJournal(PluginStart<EventQueries> start) {
    this.start = start;
  }

  /** Every event tagged {@code tag} after {@code offset} ({@code NoOffset}: from the first), then new ones as they commit. */
  @Override
  public Source<EventEnvelope, NotUsed> eventsByTag(String tag, Offset offset) {
    return Sources.of(start, q -> q.eventsByTag(tag, offset, true));
  }

  /** The events tagged {@code tag} after {@code offset} committed when the query starts; then it completes. */
  @Override
  public Source<EventEnvelope, NotUsed> currentEventsByTag(String tag, Offset offset) {
    return Sources.of(start, q -> q.eventsByTag(tag, offset, false));
  }

  @Override
  public Source<EventEnvelope, NotUsed> eventsByPersistenceId(String persistenceId, long fromSequenceNr, long toSequenceNr) {
    return Sources.of(start, q -> q.eventsByPersistenceId(persistenceId, fromSequenceNr, toSequenceNr, true));
  }

  @Override
  public Source<EventEnvelope, NotUsed> currentEventsByPersistenceId(String persistenceId, long fromSequenceNr,
      long toSequenceNr) {
    return Sources.of(start, q -> q.eventsByPersistenceId(persistenceId, fromSequenceNr, toSequenceNr, false));
  }

  /** Every persistence id, in the order its first event committed, then new ones as they appear. */
  @Override
  public Source<String, NotUsed> persistenceIds() {
    return Sources.of(start, q -> q.persistenceIds(true));
  }

  @Override
  public Source<String, NotUsed> currentPersistenceIds() {
    return Sources.of(start, q -> q.persistenceIds(false));
  }

  /** The highest sequence number of {@code persistenceId} (kept when its events are deleted), or empty if it has none. */
  @Override
  public CompletionStage<Optional<Long>> currentLastSequenceNumberByPersistenceId(String persistenceId) {
    return start.with(q -> q.lastSequenceNr(persistenceId));
  }
}
