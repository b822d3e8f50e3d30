package io.commitlane.persistence.scaladsl;

import org.apache.pekko.NotUsed;
import org.apache.pekko.persistence.query.EventEnvelope;
import org.apache.pekko.persistence.query.Offset;
import org.apache.pekko.persistence.query.scaladsl.CurrentEventsByPersistenceIdQuery;
import org.apache.pekko.persistence.query.scaladsl.CurrentEventsByTagQuery;
import org.apache.pekko.persistence.query.scaladsl.CurrentLastSequenceNumberByPersistenceIdQuery;
import org.apache.pekko.persistence.query.scaladsl.CurrentPersistenceIdsQuery;
import org.apache.pekko.persistence.query.scaladsl.EventsByPersistenceIdQuery;
import org.apache.pekko.persistence.query.scaladsl.EventsByTagQuery;
import org.apache.pekko.persistence.query.scaladsl.PersistenceIdsQuery;
import org.apache.pekko.persistence.query.scaladsl.ReadJournal;
import org.apache.pekko.stream.scaladsl.Source;
import scala.Option;
import scala.concurrent.Future;
import scala.jdk.javaapi.FutureConverters;
import scala.jdk.javaapi.OptionConverters;

/**
 * The read journal, Scala API: {@code PersistenceQuery(system).readJournalFor[CommitlaneReadJournal](
 * CommitlaneReadJournal.IDENTIFIER)}. The same queries as {@link io.commitlane.persistence.javadsl.CommitlaneReadJournal},
 * which it wraps.
 */
public final class CommitlaneReadJournal implements ReadJournal, EventsByTagQuery, CurrentEventsByTagQuery,
    EventsByPersistenceIdQuery, CurrentEventsByPersistenceIdQuery, PersistenceIdsQuery, CurrentPersistenceIdsQuery,
    CurrentLastSequenceNumberByPersistenceIdQuery {
  public static final String IDENTIFIER = io.commitlane.persistence.javadsl.CommitlaneReadJournal.IDENTIFIER;

  private final io.commitlane.persistence.javadsl.CommitlaneReadJournal java;

  public CommitlaneReadJournal(io.commitlane.persistence.javadsl.CommitlaneReadJournal java) {
    this.java = java;
  }

  @Override
  public Source<EventEnvelope, NotUsed> eventsByTag(String tag, Offset offset) {
    return java.eventsByTag(tag, offset).asScala();
  }

  @Override
  public Source<EventEnvelope, NotUsed> currentEventsByTag(String tag, Offset offset) {
    return java.currentEventsByTag(tag, offset).asScala();
  }

  @Override
  public Source<EventEnvelope, NotUsed> eventsByPersistenceId(String persistenceId, long fromSequenceNr, long toSequenceNr) {
    return java.eventsByPersistenceId(persistenceId, fromSequenceNr, toSequenceNr).asScala();
  }

  @Override
  public Source<EventEnvelope, NotUsed> currentEventsByPersistenceId(String persistenceId, long fromSequenceNr,
      long toSequenceNr) {
    return java.currentEventsByPersistenceId(persistenceId, fromSequenceNr, toSequenceNr).asScala();
  }

  @Override
  public Source<String, NotUsed> persistenceIds() {
    return java.persistenceIds().asScala();
  }

  @Override
  public Source<String, NotUsed> currentPersistenceIds() {
    return java.currentPersistenceIds().asScala();
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public Future<Option<Object>> currentLastSequenceNumberByPersistenceId(String persistenceId) {
    return (Future) FutureConverters.asScala(java.currentLastSequenceNumberByPersistenceId(persistenceId)
        .thenApply(OptionConverters::toScala));
  }
}
