package io.commitlane.bench.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.storage.CommitStage;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The legacy rows' peer: blocking commitSync tasks on an executor the benchmark names, not the pipeline. */
class BlockingCommitPeerTest {
  @TempDir
  Path dir;

  @Test
  void everyCommitIsABlockingTaskOnTheGivenDispatcher() throws Exception {
    ActorSystem<Void> system = BenchSystem.start("blocking-peer", BenchSystem.config());
    try {
      Executor dispatcher = system.dispatchers().lookup(DispatcherSelector.defaultDispatcher());
      AtomicLong tasks = new AtomicLong();
      Executor counted = task -> {
        tasks.incrementAndGet();
        dispatcher.execute(task);
      };
      PipelineSettings settings = PipelineSettings.fromConfig(system.settings().config());
      CommitlaneDatabase db = Commitlane.get(system).open(dir, settings);
      List<String> writers = new CopyOnWriteArrayList<>();
      db.storage().addStageListener((stage, c) -> {
        if (stage == CommitStage.WRITTEN) {
          writers.add(Thread.currentThread().getName());
        }
      });
      PipelineSample s;
      try {
        s = new AsyncContentionRunner(system, 1 << 20, 16, 0.05, 0.2).blockingOn(counted).measure(db, new Load(2, 1), 2, false, WindowListener.NONE);
      } finally {
        db.close();
      }
      assertTrue(s.commits().commits() > 0, "commits measured: " + s.commits());
      assertFalse(writers.isEmpty());
      assertEquals(List.of(), writers.stream().filter(n -> !n.contains("default-dispatcher")).distinct().toList(),
          "every commit is written on the default dispatcher");
      assertTrue(tasks.get() >= writers.size(), "each commit is a task on the given executor: " + tasks + " tasks, " + writers.size() + " written");
    } finally {
      BenchSystem.stop(system);
    }
  }
}
