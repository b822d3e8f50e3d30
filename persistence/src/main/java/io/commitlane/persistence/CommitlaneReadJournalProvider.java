package io.commitlane.persistence;

import com.typesafe.config.Config;
import io.commitlane.persistence.internal.EventQueries;
import io.commitlane.persistence.internal.PluginStart;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.persistence.query.ReadJournalProvider;

/** The read journal plugin ({@code commitlane.persistence.query}); Pekko creates it. */
public final class CommitlaneReadJournalProvider implements ReadJournalProvider {
  private final io.commitlane.persistence.javadsl.CommitlaneReadJournal java;
  private final io.commitlane.persistence.scaladsl.CommitlaneReadJournal scala;

  public CommitlaneReadJournalProvider(ExtendedActorSystem system, Config config, String configPath) {
    PluginStart<EventQueries> start = new PluginStart<>(system, configPath,
        c -> new EventQueries(c.store(), c.codec(), c.settings().pageSize()));
    this.java = new io.commitlane.persistence.javadsl.CommitlaneReadJournal(start);
    this.scala = new io.commitlane.persistence.scaladsl.CommitlaneReadJournal(java);
  }

  @Override
  public io.commitlane.persistence.scaladsl.CommitlaneReadJournal scaladslReadJournal() {
    return scala;
  }

  @Override
  public io.commitlane.persistence.javadsl.CommitlaneReadJournal javadslReadJournal() {
    return java;
  }
}
