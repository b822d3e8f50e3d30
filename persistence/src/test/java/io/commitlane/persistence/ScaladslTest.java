package io.commitlane.persistence;

import static io.commitlane.persistence.PluginSystem.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.commitlane.persistence.scaladsl.CommitlaneDurableStateStore;
import io.commitlane.persistence.scaladsl.CommitlaneReadJournal;
import java.nio.file.Path;
import java.util.List;
import org.apache.pekko.persistence.query.NoOffset;
import org.apache.pekko.persistence.query.PersistenceQuery;
import org.apache.pekko.persistence.state.DurableStateStoreRegistry;
import org.apache.pekko.persistence.state.scaladsl.GetObjectResult;
import org.apache.pekko.stream.javadsl.Sink;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.jdk.javaapi.FutureConverters;

/** The Scala API: the same store and queries through Pekko's Scala registries. */
class ScaladslTest {
  @TempDir
  Path dir;

  @Test
  void theScalaStoreAndReadJournalAreTheJavaOnesSeenFromScala() {
    try (PluginSystem plugins = new PluginSystem(dir.resolve("db"))) {
      CommitlaneDurableStateStore<Object> store = DurableStateStoreRegistry.get(plugins.system().classicSystem())
          .durableStateStoreFor("commitlane-persistence.state");
      await(FutureConverters.asJava(store.upsertObject("s", 1, "one", "scala")));
      GetObjectResult<Object> r = await(FutureConverters.asJava(store.getObject("s")));
      assertEquals(1L, r.revision());
      assertEquals("one", r.value().get());
      assertEquals(1, await(store.currentChanges("scala", NoOffset.getInstance()).asJava().runWith(Sink.seq(),
          plugins.system())).size());

      JournalProtocol journal = new JournalProtocol(plugins);
      journal.write(JournalProtocol.atomic(JournalProtocol.event("e", 1, "x")));
      journal.expect(org.apache.pekko.persistence.JournalProtocol.WriteMessagesSuccessful$.class);
      journal.expect(org.apache.pekko.persistence.JournalProtocol.WriteMessageSuccess.class);
      CommitlaneReadJournal queries = PersistenceQuery.get(plugins.system().classicSystem())
          .readJournalFor(CommitlaneReadJournal.IDENTIFIER);
      assertEquals(List.of("e"), await(queries.currentPersistenceIds().asJava().runWith(Sink.seq(), plugins.system())));
      assertEquals(scala.Option.apply(1L), await(FutureConverters.asJava(queries.currentLastSequenceNumberByPersistenceId("e"))));
    }
  }
}
