package io.commitlane.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.commitlane.persistence.javadsl.CommitlaneReadJournal;
import io.commitlane.testsupport.DocSnippets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.persistence.query.NoOffset;
import org.apache.pekko.persistence.query.Offset;
import org.apache.pekko.persistence.query.PersistenceQuery;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.RetentionCriteria;
import org.apache.pekko.persistence.typed.state.javadsl.DurableStateBehavior;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The examples of docs/persistence.md, compiled and run here, and compared with the page. */
class PersistenceDocsExamplesTest {
  private static final Path PAGE = DocSnippets.root().resolve("docs/persistence.md");

  @TempDir
  Path dir;

  // docs: event-sourced
  public interface CborSerializable {}

  public static final class ShoppingCart extends EventSourcedBehavior<ShoppingCart.Command, ShoppingCart.ItemAdded, List<String>> {
    public sealed interface Command extends CborSerializable {}

    public record AddItem(String item, ActorRef<Integer> replyTo) implements Command {}

    public record ItemAdded(String item) implements CborSerializable {}

    public static Behavior<Command> create(String cartId) {
      return Behaviors.setup(ctx -> new ShoppingCart(cartId));
    }

    private ShoppingCart(String cartId) {
      super(PersistenceId.of("Cart", cartId));
    }

    @Override
    public List<String> emptyState() {
      return List.of();
    }

    @Override
    public CommandHandler<Command, ItemAdded, List<String>> commandHandler() {
      return newCommandHandlerBuilder().forAnyState()
          .onCommand(AddItem.class, (cart, add) -> Effect().persist(new ItemAdded(add.item()))  // one commit
              .thenRun(updated -> add.replyTo().tell(updated.size())))                        // after it is durable
          .build();
    }

    @Override
    public EventHandler<List<String>, ItemAdded> eventHandler() {
      return newEventHandlerBuilder().forAnyState().onEvent(ItemAdded.class, (cart, added) -> {
        List<String> items = new ArrayList<>(cart);
        items.add(added.item());
        return items;
      }).build();
    }

    @Override
    public Set<String> tagsFor(ItemAdded event) {
      return Set.of("carts");                                  // indexed in the same commit, for eventsByTag
    }

    @Override
    public RetentionCriteria retentionCriteria() {
      return RetentionCriteria.snapshotEvery(100, 2);          // snapshots go to commitlane-persistence.snapshot-store
    }
  }
  // end docs: event-sourced

  // docs: durable-state
  public static final class Counter extends DurableStateBehavior<Counter.Command, Counter.State> {
    public sealed interface Command extends CborSerializable {}

    public record Increment(ActorRef<Long> replyTo) implements Command {}

    public record State(long value) implements CborSerializable {}

    public static Behavior<Command> create(String id) {
      return Behaviors.setup(ctx -> new Counter(id));
    }

    private Counter(String id) {
      super(PersistenceId.of("Counter", id));
    }

    @Override
    public State emptyState() {
      return new State(0);
    }

    @Override
    public org.apache.pekko.persistence.typed.state.javadsl.CommandHandler<Command, State> commandHandler() {
      return newCommandHandlerBuilder().forAnyState()
          .onCommand(Increment.class, (state, inc) -> Effect().persist(new State(state.value() + 1)) // revision + 1, conditional
              .thenRun(updated -> inc.replyTo().tell(updated.value())))
          .build();
    }

    @Override
    public String tag() {
      return "counters";                                       // for changes("counters", offset)
    }
  }
  // end docs: durable-state

  private Config config() {
    // The page's configuration as it stands, with this test's marker interface and directory in place of the page's.
    String shown = DocSnippets.fenced(DocSnippets.read(PAGE), "<!-- docs: config", "hocon")
        .replace("com.example.CborSerializable", CborSerializable.class.getName());
    return ConfigFactory.parseString("commitlane-persistence.path = \"" + dir.resolve("data").toString().replace("\\", "\\\\")
            + "\"").withFallback(ConfigFactory.parseString(shown)).withFallback(ConfigFactory.load()).resolve();
  }

  @Test
  void theExamplesRunWithTheConfigurationThePageShows() throws Exception {
    List<String> projected = new ArrayList<>();
    AtomicReference<Offset> offsets = new AtomicReference<>(NoOffset.getInstance());
    for (int run = 0; run < 2; run++) {   // the second run recovers what the first stored
      ActorTestKit kit = ActorTestKit.create("shop", config());
      try {
        ActorSystem<Void> system = kit.system();
        TestProbe<Integer> items = kit.createTestProbe();
        ActorRef<ShoppingCart.Command> cart = kit.spawn(ShoppingCart.create("c-1"));
        cart.tell(new ShoppingCart.AddItem("apple-" + run, items.getRef()));
        assertEquals(run + 1, items.receiveMessage(Duration.ofSeconds(20)));
        TestProbe<Long> count = kit.createTestProbe();
        ActorRef<Counter.Command> counter = kit.spawn(Counter.create("visits"));
        counter.tell(new Counter.Increment(count.getRef()));
        assertEquals(run + 1L, count.receiveMessage(Duration.ofSeconds(20)));

        // docs: queries
        CommitlaneReadJournal queries = PersistenceQuery.get(system)
            .getReadJournalFor(CommitlaneReadJournal.class, CommitlaneReadJournal.IDENTIFIER);
        Offset saved = offsets.get();                            // NoOffset the first time
        CompletionStage<Done> projection = queries.eventsByTag("carts", saved) // after the saved offset, then live
            .map(envelope -> {
              projected.add(((ShoppingCart.ItemAdded) envelope.event()).item());
              return envelope.offset();                          // a commit position: the same after a restart
            })
            .take(1)                                             // a real projection runs until it is stopped
            .runForeach(offsets::set, system);                   // store the offset once the event is handled
        // end docs: queries
        projection.toCompletableFuture().get(20, TimeUnit.SECONDS);
      } finally {
        kit.shutdownTestKit();
      }
    }
    assertEquals(List.of("apple-0", "apple-1"), projected, "the second run resumed after the first one's offset");
  }

  @Test
  void thePageShowsTheCodeThatRunsHere() {
    Path source = Path.of("src/test/java/io/commitlane/persistence/PersistenceDocsExamplesTest.java");
    DocSnippets.assertShown(source, PAGE, "event-sourced");
    DocSnippets.assertShown(source, PAGE, "durable-state");
    DocSnippets.assertShown(source, PAGE, "queries");
    String readme = DocSnippets.fenced(DocSnippets.read(DocSnippets.root().resolve("README.md")), "<!-- README: persistence", "hocon");
    assertEquals(DocSnippets.fenced(DocSnippets.read(PAGE), "<!-- docs: config", "hocon"), readme,
        "the README shows the configuration the page shows (and this test starts)");
  }
}
