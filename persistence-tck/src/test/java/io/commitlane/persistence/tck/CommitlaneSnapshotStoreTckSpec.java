package io.commitlane.persistence.tck;

import org.apache.pekko.persistence.CapabilityFlag;
import org.apache.pekko.persistence.japi.snapshot.JavaSnapshotStoreSpec;

/** Pekko's snapshot store TCK with serialization and metadata switched on. */
public class CommitlaneSnapshotStoreTckSpec extends JavaSnapshotStoreSpec {
  public CommitlaneSnapshotStoreTckSpec() {
    super(TckConfig.config("snapshots"));
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
