package io.commitlane.persistence;

import com.typesafe.config.Config;
import java.util.Set;
import io.commitlane.persistence.internal.query.EventQueries;
import io.commitlane.persistence.internal.plugin.PluginStart;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.persistence.query.ReadJournalProvider;

/** The read journal plugin ({@code commitlane-persistence.query}); Pekko creates it. */
public final class CommitlaneReadJournalProvider implements ReadJournalProvider {
  /** The journal whose event adapters the queries apply ({@code commitlane-persistence.journal} unless set). */
  private static final String WRITE_PLUGIN = "write-plugin";

  private final io.commitlane.persistence.javadsl.CommitlaneReadJournal java;
  private final io.commitlane.persistence.scaladsl.CommitlaneReadJournal scala;

  public CommitlaneReadJournalProvider(ExtendedActorSystem system, Config config, String configPath) {
    PluginStart<EventQueries> start = new PluginStart<>(system, configPath, Set.of(WRITE_PLUGIN), c -> {
      String writePlugin = config.hasPath(WRITE_PLUGIN) ? config.getString(WRITE_PLUGIN) : "commitlane-persistence.journal";
      // the journal's event adapters turn stored events back into what the actors persisted, as its replay does
      return new EventQueries(c.store(), c.codec(), c.settings().pageSize(),
          org.apache.pekko.persistence.Persistence.get(c.system()).adaptersFor(writePlugin));
    });
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
