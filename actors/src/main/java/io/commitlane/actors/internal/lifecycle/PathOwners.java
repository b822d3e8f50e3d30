package io.commitlane.actors.internal.lifecycle;

import io.commitlane.storage.PathInUseException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Which actor system of this process owns each database path. One system per path: a second
 * system would start a second supervisor, a second set of commit executors and a second set of
 * transaction logs over the same files, so its open is refused.
 */
public final class PathOwners {
  private static final Map<Path, ActorSystem<?>> OWNERS = new HashMap<>();

  private PathOwners() {}

  /** Claim {@code path} (canonical) for {@code system}; refused while another system holds it. */
  public static synchronized void claim(Path path, ActorSystem<?> system) {
    ActorSystem<?> owner = OWNERS.get(path);
    if (owner != null && owner != system) {
      throw new PathInUseException("database " + path + " is open in actor system \"" + owner.name() + "\" (" + owner.address()
          + ") of this process; actor system \"" + system.name() + "\" cannot open it as well, since it would run a second set of"
          + " commit executors and transaction logs over the same files. Use one actor system per process for a database, or close"
          + " it in \"" + owner.name() + "\" first");
    }
    OWNERS.put(path, system);
  }

  /** Give {@code path} back, if {@code system} holds it. */
  public static synchronized void release(Path path, ActorSystem<?> system) {
    OWNERS.remove(path, system);
  }
}
