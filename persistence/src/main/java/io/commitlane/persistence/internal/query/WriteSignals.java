package io.commitlane.persistence.internal.query;

import io.commitlane.annotation.InternalApi;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * INTERNAL API. Tells the live queries of a persistence id that its events were written: the journal signals after
 * each acknowledged write (the commit's completion), so {@code eventsByPersistenceId} follows commits without
 * polling. A write with no listener costs one map lookup.
 */
@InternalApi
public final class WriteSignals {
  private final ConcurrentHashMap<String, Set<Runnable>> listeners = new ConcurrentHashMap<>();

  /** Run {@code listener} after every acknowledged write of {@code pid}, on the completing thread: hand over only. */
  public Runnable subscribe(String pid, Runnable listener) {
    listeners.computeIfAbsent(pid, p -> ConcurrentHashMap.newKeySet()).add(listener);
    return () -> listeners.computeIfPresent(pid, (p, set) -> {
      set.remove(listener);
      return set.isEmpty() ? null : set;
    });
  }

  /** The ids that have listeners now. */
  public java.util.Set<String> listened() {
    return java.util.Set.copyOf(listeners.keySet());
  }

  /** Wake the listeners of {@code pid}: it was written (here, or on another node and applied here). */
  public void written(String pid) {
    Set<Runnable> set = listeners.get(pid);
    if (set != null) {
      set.forEach(Runnable::run);
    }
  }
}
