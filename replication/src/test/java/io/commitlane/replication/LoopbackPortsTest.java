package io.commitlane.replication;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.testsupport.LoopbackPorts;
import java.io.BufferedReader;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * The replicas' test ports come from below the system's ephemeral range: a port in it can be taken
 * by an outgoing connection while a stopped replica is down, and Ratis ends the JVM when the
 * restarted replica cannot bind it.
 */
class LoopbackPortsTest {
  @Test
  @EnabledOnOs(OS.LINUX)
  void portsHandedToReplicasAreBelowTheEphemeralRange() throws Exception {
    int ephemeralStart;
    try (BufferedReader r = Files.newBufferedReader(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
      ephemeralStart = Integer.parseInt(r.readLine().trim().split("\\s+")[0]);
    }
    for (int i = 0; i < 20; i++) {
      int port = LoopbackPorts.freePort();
      assertTrue(port < ephemeralStart, port + " is in the ephemeral range from " + ephemeralStart);
    }
  }
}
