package io.commitlane.persistence.tck;

import org.apache.pekko.persistence.CapabilityFlag;
import org.apache.pekko.persistence.japi.snapshot.JavaSnapshotStoreSpec;

/** Pekko's snapshot store TCK on a replicated database of three voters, with serialization and metadata switched on. */
public class ReplicatedSnapshotStoreTckSpec extends JavaSnapshotStoreSpec {
  public ReplicatedSnapshotStoreTckSpec() {
    super(TckConfig.replicated("snapshots"));
  }

  @Override
  public CapabilityFlag supportsSerialization() {
    return CapabilityFlag.on();
  }

  @Override
  public CapabilityFlag supportsMetadata() {
    return CapabilityFlag.on();
  }
}
