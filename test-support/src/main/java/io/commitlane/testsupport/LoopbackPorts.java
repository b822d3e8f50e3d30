package io.commitlane.testsupport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/** Ports for servers a test starts on the loopback address. */
public final class LoopbackPorts {
  /** The lowest port handed out: above the well-known and most registered services' ports. */
  private static final int LOWEST = 20_000;
  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

  private LoopbackPorts() {}

  /**
   * A port free on the loopback address now, that nothing else will take before the test binds it:
   * chosen below the system's ephemeral range (the ports outgoing connections get as their local
   * port), never handed out twice by this JVM. A port the system picks for a socket bound to port 0
   * is from that range, so an outgoing connection (a gRPC channel, a cluster's gossip) could take it
   * between the choice and the server's bind, and the server then fails to start.
   */
  public static int freePort() {
    int below = ephemeralStart();
    if (below - LOWEST < 1_000) {
      return systemChoice();
    }
    for (int tries = 0; tries < 200; tries++) {
      int port = ThreadLocalRandom.current().nextInt(LOWEST, below);
      if (HANDED_OUT.add(port)) {
        if (bindable(port)) {
          return port;
        }
      }
    }
    return systemChoice();
  }

  private static boolean bindable(int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(false);
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** The first port of the system's ephemeral range (Linux), or 0 when it cannot be read. */
  private static int ephemeralStart() {
    // Read as a stream: /proc files report a size of 0, and Files.readString trusts the size (it
    // returned "3" here, so every port came from the system's ephemeral range).
    try (BufferedReader r = Files.newBufferedReader(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
      String range = r.readLine();
      return Integer.parseInt(range.trim().split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  private static int systemChoice() {
    try (ServerSocket s = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
