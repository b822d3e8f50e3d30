package io.commitlane.bench.replica;

import io.commitlane.replication.ReplicaPeer;
import io.commitlane.replication.ReplicaReport;
import io.commitlane.replication.ReplicatedDatabase;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The status of a node's replicas over a plain TCP connection, on the node's Raft port + 1, served
 * by {@code replica run}: {@code replica status} asks it first, so a one-shot check needs no gRPC
 * client of its own (loading and starting one is most of a fresh process's time). The node answers
 * with its replica's {@link ReplicatedDatabase#groupStatus()}: its own warm connections ask every
 * replica. One line in ({@code commitlane-status 1 DATABASE}), tab-separated lines out, then
 * {@code end}.
 *
 * <p>Every connection the acceptor takes is either handed to an answering thread or closed: {@link
 * #close} stops accepting, waits for the acceptor to hand off or close what it took, closes the
 * connections still open, and only then stops the answering threads. The asking side so never
 * waits out its answer timeout on a connection nobody serves.
 */
public final class ReplicaStatusEndpoint implements AutoCloseable {
  static final String HELLO = "commitlane-status 1";
  /** How long the asking side waits to connect to one node's endpoint; a stopped node refuses at once. */
  static final int CONNECT_MILLIS = 1000;
  /** How long the asking side waits for the table once connected: the node's own probe gives a replica 5 s after the first answer. */
  static final int ANSWER_MILLIS = 30_000;

  private final ServerSocket listening;
  private final Map<String, ReplicatedDatabase> databases = new ConcurrentHashMap<>();
  private final ExecutorService answering;
  /** Connections accepted and not yet closed: {@link #close} closes them. */
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final Thread acceptor;
  /** Runs on the acceptor thread after each accept, before the hand-off: a test's hook into close. */
  private final Runnable accepted;
  private volatile boolean closed;

  private ReplicaStatusEndpoint(ServerSocket listening, Runnable accepted) {
    this.listening = listening;
    this.accepted = accepted;
    this.answering = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "commitlane-replica-status-endpoint");
      t.setDaemon(true);
      return t;
    });
    acceptor = new Thread(this::accept, "commitlane-replica-status-acceptor");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** The port a node serves its status on: its Raft port + 1. */
  static int port(ReplicaPeer peer) {
    return peer.port() + 1;
  }

  /** Serves on {@code self}'s address at {@link #port}; throws when the port cannot be bound. */
  static ReplicaStatusEndpoint serve(ReplicaPeer self) throws IOException {
    return serve(self, () -> { });
  }

  /** As {@link #serve(ReplicaPeer)}, running {@code accepted} on the acceptor thread after each accept. */
  static ReplicaStatusEndpoint serve(ReplicaPeer self, Runnable accepted) throws IOException {
    ServerSocket s = new ServerSocket();
    try {
      s.bind(new InetSocketAddress(InetAddress.getByName(self.host()), port(self)));
    } catch (IOException e) {
      s.close();
      throw e;
    }
    return new ReplicaStatusEndpoint(s, accepted);
  }

  /**
   * {@code n} loopback ports, each free now with the port after it (a node's status endpoint), no
   * two pairs overlapping: for nodes started on one machine.
   */
  public static int[] freePortPairs(int n) throws IOException {
    int[] ports = new int[n];
    List<ServerSocket> open = new ArrayList<>();
    try {
      for (int i = 0, tries = 0; i < n; tries++) {
        if (tries > 1000) {
          throw new IOException("no " + n + " pairs of adjacent free ports on this machine");
        }
        ServerSocket s = new ServerSocket(0);
        open.add(s);
        try {
          ServerSocket next = new ServerSocket(s.getLocalPort() + 1);
          open.add(next);
          ports[i++] = s.getLocalPort();
        } catch (IOException taken) {
          // the port after it is in use (or past the last): try another
        }
      }
    } finally {
      for (ServerSocket s : open) {
        s.close();
      }
    }
    return ports;
  }

  void add(ReplicatedDatabase db) {
    databases.put(db.name(), db);
  }

  private void accept() {
    while (!closed) {
      Socket c;
      try {
        c = listening.accept();
      } catch (IOException e) {
        return; // closed
      }
      open.add(c);
      accepted.run();
      if (closed) {
        closeQuietly(c); // close() may have passed the open connections already
        return;
      }
      try {
        answering.execute(() -> answer(c));
      } catch (RejectedExecutionException e) {
        closeQuietly(c);
        return;
      }
    }
  }

  private void closeQuietly(Socket c) {
    open.remove(c);
    try {
      c.close();
    } catch (IOException e) {
      // closing releases the connection
    }
  }

  private void answer(Socket c) {
    try (c) {
      c.setSoTimeout(ANSWER_MILLIS);
      BufferedReader in = new BufferedReader(new InputStreamReader(c.getInputStream(), StandardCharsets.UTF_8));
      Writer out = new OutputStreamWriter(c.getOutputStream(), StandardCharsets.UTF_8);
      String request = in.readLine();
      if (request == null || !request.startsWith(HELLO + " ")) {
        out.write("refused\tnot a status request\n");
      } else {
        ReplicatedDatabase db = databases.get(request.substring(HELLO.length() + 1).trim());
        if (db == null) {
          out.write("refused\tthis node hosts no replica of that database\n");
        } else {
          for (ReplicaReport r : db.groupStatus()) {
            out.write(String.join("\t", "replica", r.replica(), Boolean.toString(r.reachable()), String.valueOf(r.role()),
                String.valueOf(r.leader()), Long.toString(r.term()), Long.toString(r.lastIndex()), Long.toString(r.committedIndex()),
                Long.toString(r.appliedIndex()), Long.toString(r.snapshotIndex()), oneLine(r.error())) + "\n");
          }
          out.write("end\n");
        }
      }
      out.flush();
    } catch (IOException | RuntimeException e) {
      // the asking side gave up or the node is closing: it falls back to asking over gRPC
    } finally {
      open.remove(c);
    }
  }

  private static String oneLine(String s) {
    return s == null ? "null" : s.replace('\t', ' ').replace('\n', ' ').replace('\r', ' ');
  }

  /**
   * The group's status for {@code database} from the first of {@code peers} whose endpoint
   * answers (all asked at once), or null when none does: the caller asks over gRPC then.
   */
  static List<ReplicaReport> ask(List<ReplicaPeer> peers, String database) {
    ExecutorService askers = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "commitlane-replica-status-ask");
      t.setDaemon(true);
      return t;
    });
    try {
      List<CompletableFuture<List<ReplicaReport>>> asked = new ArrayList<>();
      for (ReplicaPeer p : peers) {
        asked.add(CompletableFuture.supplyAsync(() -> askOne(p, database), askers));
      }
      CompletableFuture<List<ReplicaReport>> first = new CompletableFuture<>();
      CompletableFuture.allOf(asked.stream().map(f -> f.thenAccept(r -> {
        if (r != null) {
          first.complete(r);
        }
      })).toArray(CompletableFuture[]::new)).thenRun(() -> first.complete(null));
      return first.get(ANSWER_MILLIS + CONNECT_MILLIS, TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      return null;
    } finally {
      askers.shutdownNow();
    }
  }

  /** One node's answer, or null: nothing listens, something else listens, or the node does not host the database. */
  static List<ReplicaReport> askOne(ReplicaPeer peer, String database) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getByName(peer.host()), port(peer)), CONNECT_MILLIS);
      s.setSoTimeout(ANSWER_MILLIS);
      Writer out = new OutputStreamWriter(s.getOutputStream(), StandardCharsets.UTF_8);
      out.write(HELLO + " " + database + "\n");
      out.flush();
      BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
      List<ReplicaReport> reports = new ArrayList<>();
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.equals("end")) {
          return reports.isEmpty() ? null : reports;
        }
        String[] f = line.split("\t", -1);
        if (f.length != 11 || !f[0].equals("replica")) {
          return null;
        }
        boolean reachable = Boolean.parseBoolean(f[2]);
        reports.add(new ReplicaReport(f[1], reachable, nullable(f[3]), nullable(f[4]), Long.parseLong(f[5]), Long.parseLong(f[6]),
            Long.parseLong(f[7]), Long.parseLong(f[8]), Long.parseLong(f[9]), nullable(f[10])));
      }
      return null;
    } catch (IOException | RuntimeException e) {
      return null; // SocketTimeoutException, refused, a malformed line
    }
  }

  private static String nullable(String s) {
    return s.equals("null") ? null : s;
  }

  /**
   * Stops accepting, then closes every connection accepted (the asking side sees it end at once
   * and asks another node or over gRPC), then stops the answering threads: in that order, so no
   * connection is accepted after the threads stopped and left open.
   */
  @Override
  public void close() {
    closed = true;
    try {
      listening.close();
    } catch (IOException e) {
      // closing releases the port
    }
    if (Thread.currentThread() != acceptor) {
      try {
        acceptor.join(); // it hands off or closes what it accepted, then ends: its accept fails now
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    open.forEach(this::closeQuietly);
    answering.shutdownNow();
  }
}
