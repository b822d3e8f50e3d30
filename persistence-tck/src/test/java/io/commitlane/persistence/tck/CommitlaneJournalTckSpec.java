package io.commitlane.persistence.tck;

import org.apache.pekko.persistence.CapabilityFlag;
import org.apache.pekko.persistence.japi.journal.JavaJournalSpec;

/**
 * Pekko's journal TCK with every capability the journal has switched on: atomic persistAll, rejecting
 * non-serializable events, serialization, metadata.
 */
public class CommitlaneJournalTckSpec extends JavaJournalSpec {
  public CommitlaneJournalTckSpec() {
    super(TckConfig.config("journal"));
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
