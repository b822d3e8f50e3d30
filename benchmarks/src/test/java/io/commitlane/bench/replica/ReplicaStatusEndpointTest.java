package io.commitlane.bench.replica;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.replication.ReplicaPeer;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ReplicaStatusEndpointTest {
  /**
   * A connection the endpoint accepts while it closes ends at once: the acceptor holds it (a hook
   * between accept and hand-off) until the close has gone as far as it goes without the acceptor,
   * and the asking side then reads the end of the connection, not its answer timeout.
   */
  @Test
  void aConnectionAcceptedWhileTheEndpointClosesEndsAtOnce() throws Exception {
    ReplicaPeer self = new ReplicaPeer("n0", "127.0.0.1", ReplicaStatusEndpoint.freePortPairs(1)[0]);
    CountDownLatch accepted = new CountDownLatch(1);
    CountDownLatch handOff = new CountDownLatch(1);
    ReplicaStatusEndpoint endpoint = ReplicaStatusEndpoint.serve(self, () -> {
      accepted.countDown();
      try {
        handOff.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    Thread closing = new Thread(endpoint::close, "closing-endpoint");
    try (Socket asking = new Socket()) {
      asking.connect(new InetSocketAddress("127.0.0.1", ReplicaStatusEndpoint.port(self)), ReplicaStatusEndpoint.CONNECT_MILLIS);
      asking.getOutputStream().write((ReplicaStatusEndpoint.HELLO + " bench\n").getBytes(UTF_8));
      assertTrue(accepted.await(60, TimeUnit.SECONDS), "the endpoint accepted the connection");
      closing.start();
      // the close ends, or waits for the acceptor, which holds the accepted connection
      while (closing.getState() != Thread.State.WAITING && closing.getState() != Thread.State.TERMINATED) {
        Thread.onSpinWait();
      }
      handOff.countDown();
      closing.join();

      asking.setSoTimeout(20_000); // far below the asking side's answer timeout, far above a close
      InputStream in = asking.getInputStream();
      int read;
      try {
        read = in.read();
      } catch (SocketTimeoutException e) {
        throw new AssertionError("the accepted connection was left open after the endpoint closed", e);
      } catch (SocketException reset) {
        read = -1; // closed with the request unread: a reset
      }
      assertEquals(-1, read, "the endpoint closed the connection it accepted while closing");
    } finally {
      handOff.countDown();
      endpoint.close();
    }
  }
}
