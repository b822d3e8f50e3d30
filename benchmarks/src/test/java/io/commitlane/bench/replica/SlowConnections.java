package io.commitlane.bench.replica;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback proxy in front of one server whose every new connection starts only after {@code
 * delay}: a healthy server that is slow to reach, as every server is from a process whose gRPC
 * has not started yet. Bytes then flow both ways untouched.
 */
final class SlowConnections implements AutoCloseable {
  private final ServerSocket listening;
  private final List<Socket> open = new CopyOnWriteArrayList<>();

  SlowConnections(int targetPort, Duration delay) throws IOException {
    InetAddress loopback = InetAddress.getLoopbackAddress();
    listening = new ServerSocket(0, 50, loopback);
    Thread acceptor = new Thread(() -> {
      while (!listening.isClosed()) {
        try {
          Socket client = listening.accept();
          open.add(client);
          Thread t = new Thread(() -> {
            try {
              Thread.sleep(delay.toMillis()); // the injected slowness
              Socket server = new Socket(loopback, targetPort);
              open.add(server);
              pump(client, server);
              pump(server, client);
            } catch (IOException | InterruptedException e) {
              closeQuietly(client);
            }
          }, "slow-connection");
          t.setDaemon(true);
          t.start();
        } catch (IOException e) {
          return; // closed
        }
      }
    }, "slow-connections-acceptor");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return listening.getLocalPort();
  }

  private static void pump(Socket from, Socket to) {
    Thread t = new Thread(() -> {
      byte[] buffer = new byte[8192];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
          out.write(buffer, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        // one side closed: close both
      } finally {
        closeQuietly(from);
        closeQuietly(to);
      }
    }, "slow-connection-pump");
    t.setDaemon(true);
    t.start();
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // closing
    }
  }

  @Override
  public void close() throws IOException {
    listening.close();
    open.forEach(SlowConnections::closeQuietly);
  }
}
