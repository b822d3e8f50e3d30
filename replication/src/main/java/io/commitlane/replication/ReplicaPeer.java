package io.commitlane.replication;

import io.commitlane.annotation.InternalApi;
import io.commitlane.storage.InvalidSettingsException;
import io.commitlane.storage.InvalidSettingsException.SettingError;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One node that hosts replicas: its id (unique in the cluster, stable across restarts) and the
 * address its Raft server listens on.
 */
public record ReplicaPeer(String id, String host, int port) {
  public ReplicaPeer {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(host, "host");
    List<SettingError> errors = new ArrayList<>();
    if (!id.matches("[A-Za-z0-9._-]{1,64}")) {
      errors.add(new SettingError("id", id, "1..64 letters, digits, '.', '_' or '-'"));
    }
    if (host.isBlank()) {
      errors.add(new SettingError("host", host, "a host name or address"));
    }
    if (port < 1 || port > 65535) {
      errors.add(new SettingError("port", port, "1..65535"));
    }
    if (!errors.isEmpty()) {
      throw new InvalidSettingsException(errors);
    }
  }

  @InternalApi public String address() {
    return host + ":" + port;
  }
}
