package io.commitlane.txlog.internal.append;

import io.commitlane.txlog.AppendMode;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The queue of an {@link AppendMode#ACTOR} log's writer: many producers, one consumer (the holder
 * of the writer's role), intrusive and unbounded (Vyukov's MPSC queue). An offer is one atomic
 * exchange and one store, never a retry loop. A poll may return {@code null} for a moment while an
 * offer is between its two steps; {@link #isEmpty()} does not: it says "not empty" then.
 */
final class WriterQueue {
  /** An item; each is offered once. */
  static class Node {
    volatile Node next;
  }

  private final AtomicReference<Node> tail;
  /** The last item taken (a stub at first); touched only by the role holder. */
  private Node head;

  WriterQueue() {
    Node stub = new Node();
    head = stub;
    tail = new AtomicReference<>(stub);
  }

  void offer(Node item) {
    Node previous = tail.getAndSet(item);
    previous.next = item;
  }

  /** The next item, or {@code null} if none is visible yet. Role holder only. */
  Node poll() {
    Node next = head.next;
    if (next == null) {
      return null;
    }
    head = next;
    return next;
  }

  /** Whether nothing is queued, not even an offer in progress. Role holder only. */
  boolean isEmpty() {
    return tail.get() == head;
  }
}
