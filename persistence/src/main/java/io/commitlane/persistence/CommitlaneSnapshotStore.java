package io.commitlane.persistence;

import com.typesafe.config.Config;
import io.commitlane.persistence.internal.plugin.PluginStart;
import io.commitlane.persistence.internal.snapshot.Snapshots;
import java.util.Optional;
import org.apache.pekko.persistence.SelectedSnapshot;
import org.apache.pekko.persistence.SnapshotMetadata;
import org.apache.pekko.persistence.SnapshotSelectionCriteria;
import org.apache.pekko.persistence.snapshot.japi.SnapshotStore;
import scala.concurrent.Future;
import scala.jdk.javaapi.FutureConverters;

/**
 * The snapshot store plugin: configure {@code pekko.persistence.snapshot-store.plugin =
 * "commitlane-persistence.snapshot-store"}. A save is one commit; a load is one reverse range read, newest match
 * first, skipping (with a warning) a snapshot that no longer deserializes, as Pekko's own store does.
 */
public final class CommitlaneSnapshotStore extends SnapshotStore {
  private final PluginStart<Snapshots> start;

  public CommitlaneSnapshotStore(Config config, String configPath) {
    start = new PluginStart<>(context().system(), configPath, c -> new Snapshots(c.store(), c.codec(), c.settings().pageSize()));
  }

  @Override
  public Future<Optional<SelectedSnapshot>> doLoadAsync(String persistenceId, SnapshotSelectionCriteria criteria) {
    return FutureConverters.asScala(start.with(s -> s.load(persistenceId, criteria)));
  }

  @Override
  public Future<Void> doSaveAsync(SnapshotMetadata metadata, Object snapshot) {
    return FutureConverters.asScala(start.with(s -> s.save(metadata, snapshot)));
  }

  @Override
  public Future<Void> doDeleteAsync(SnapshotMetadata metadata) {
    return FutureConverters.asScala(start.with(s -> s.delete(metadata)));
  }

  @Override
  public Future<Void> doDeleteAsync(String persistenceId, SnapshotSelectionCriteria criteria) {
    return FutureConverters.asScala(start.with(s -> s.delete(persistenceId, criteria)));
  }

  @Override
  public void postStop() throws Exception {
    start.stop();
    super.postStop();
  }
}
