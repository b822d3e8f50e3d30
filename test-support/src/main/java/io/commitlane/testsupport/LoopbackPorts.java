package io.commitlane.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Ports for servers a test starts on the loopback address. */
public final class LoopbackPorts {
  private LoopbackPorts() {}

  /**
   * A port that was free on the loopback address a moment ago (the system's choice for a socket
   * bound to port 0, then closed).
   */
  public static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
