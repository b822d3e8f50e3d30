package io.commitlane.persistence.tck;

import org.apache.pekko.persistence.CapabilityFlag;
import org.apache.pekko.persistence.japi.journal.JavaJournalSpec;

/**
 * Pekko's journal TCK on a replicated database of three voters ({@link TckConfig#replicated}), with every capability
 * the journal has switched on: atomic persistAll, rejecting non-serializable events, serialization, metadata.
 */
public class ReplicatedJournalTckSpec extends JavaJournalSpec {
  public ReplicatedJournalTckSpec() {
    super(TckConfig.replicated("journal"));
  }

  @Override
  public CapabilityFlag supportsRejectingNonSerializableObjects() {
    return CapabilityFlag.on();
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
