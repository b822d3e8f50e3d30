package io.commitlane.persistence;

import static io.commitlane.persistence.JournalProtocol.atomic;
import static io.commitlane.persistence.JournalProtocol.event;
import static io.commitlane.persistence.PluginSystem.failure;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.commitlane.persistence.javadsl.CommitlaneDurableStateStore;
import io.commitlane.persistence.javadsl.CommitlaneReadJournal;
import io.commitlane.storage.InvalidSettingsException;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.persistence.JournalProtocol.WriteMessageSuccess;
import org.apache.pekko.persistence.JournalProtocol.WriteMessagesSuccessful$;
import org.apache.pekko.persistence.query.PersistenceQuery;
import org.apache.pekko.persistence.state.DurableStateStoreRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Both ends of a plugin's life: settings, start (a database another process holds), several instances, shutdown. */
class LifecycleTest {
  @TempDir
  Path dir;

  @Test
  void aDatabaseHeldByAnotherProcessIsAClearErrorNamingItNotAHang() throws Exception {
    Path db = dir.resolve("held");
    Process holder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
        System.getProperty("java.class.path"), HoldDatabase.class.getName(), db.toString())
        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
      assertEquals("holding", out.readLine());
      try (PluginSystem plugins = new PluginSystem(db)) {
        CommitlaneReadJournal queries = PersistenceQuery.get(plugins.system().classicSystem())
            .getReadJournalFor(CommitlaneReadJournal.class, CommitlaneReadJournal.IDENTIFIER);
        long start = System.nanoTime();
        Throwable error = failure(queries.currentLastSequenceNumberByPersistenceId("any"));
        assertTrue(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start) < 15, "fails at once, not after a timeout");
        assertTrue(String.valueOf(error.getMessage()).contains(db.toString()), "the error names the path: " + error);

        JournalProtocol journal = new JournalProtocol(plugins);
        List<Object> replay = journal.replay("any");
        assertInstanceOf(org.apache.pekko.persistence.JournalProtocol.ReplayMessagesFailure.class, replay.get(0));
      }
    } finally {
      holder.getOutputStream().close();
      holder.waitFor(30, TimeUnit.SECONDS);
      holder.destroyForcibly();
    }
  }

  @Test
  void invalidSettingsFailEveryOperationNamingEachBadKey() {
    String bad = """
        commitlane-persistence.state { durability = sometimes, page-size = 0, logg = x }
        """;
    try (PluginSystem plugins = new PluginSystem(dir.resolve("db"), bad)) {
      @SuppressWarnings("unchecked")
      CommitlaneDurableStateStore<Object> store = DurableStateStoreRegistry.get(plugins.system().classicSystem())
          .getDurableStateStoreFor(CommitlaneDurableStateStore.class, CommitlaneDurableStateStore.IDENTIFIER);
      InvalidSettingsException e = assertInstanceOf(InvalidSettingsException.class, failure(store.getObject("x")));
      assertEquals(List.of("commitlane-persistence.state.durability", "commitlane-persistence.state.logg",
          "commitlane-persistence.state.page-size"), e.fields().stream().sorted().toList(), e.getMessage());
    }
  }

  @Test
  void pluginInstancesWithOtherPathsKeepTheirDataApart() {
    String second = """
        second-journal = ${commitlane-persistence.journal} { path = "%s" }
        """.formatted(dir.resolve("second").toString().replace("\\", "\\\\"));
    try (PluginSystem plugins = new PluginSystem(dir.resolve("first"), second)) {
      JournalProtocol first = new JournalProtocol(plugins);
      first.write(atomic(event("same-id", 1, "in the first")));
      first.expect(WriteMessagesSuccessful$.class);
      first.expect(WriteMessageSuccess.class);
      JournalProtocol other = new JournalProtocol(plugins, "second-journal");
      assertEquals(List.of("highest=0"), other.replay("same-id"));
      other.write(atomic(event("same-id", 1, "in the second")));
      other.expect(WriteMessagesSuccessful$.class);
      other.expect(WriteMessageSuccess.class);
      assertEquals(List.of("in the first", "highest=1"), first.replay("same-id"));
      assertEquals(List.of("in the second", "highest=1"), other.replay("same-id"));
    }
  }

  @Test
  void pluginsSharingADatabaseWithOtherDurabilityAreRefusedByName() {
    try (PluginSystem plugins = new PluginSystem(dir.resolve("db"), "commitlane-persistence.state.durability = fsync")) {
      JournalProtocol journal = new JournalProtocol(plugins);
      assertEquals(List.of("highest=0"), journal.replay("x"));  // the journal opened the database first
      @SuppressWarnings("unchecked")
      CommitlaneDurableStateStore<Object> store = DurableStateStoreRegistry.get(plugins.system().classicSystem())
          .getDurableStateStoreFor(CommitlaneDurableStateStore.class, CommitlaneDurableStateStore.IDENTIFIER);
      Throwable e = failure(store.getObject("x"));
      assertTrue(e.getMessage().contains("durability = fsync") && e.getMessage().contains("commitlane-persistence.journal"),
          e.getMessage());
    }
  }

  @Test
  void theReferenceConfDefinesEveryPluginWithItsClass() {
    var config = ConfigFactory.load();
    for (String id : List.of("journal", "snapshot-store", "state", "query")) {
      assertTrue(config.hasPath("commitlane-persistence." + id + ".class"), id);
    }
    assertEquals("io.commitlane.persistence.CommitlaneJournal", config.getString("commitlane-persistence.journal.class"));
    assertEquals(Optional.of("pekko-persistence"), Optional.of(config.getString("commitlane-persistence.log")));
  }

}
