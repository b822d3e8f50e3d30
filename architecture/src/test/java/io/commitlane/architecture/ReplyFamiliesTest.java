package io.commitlane.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.actors.DatabaseProtocol;
import io.commitlane.actors.DatabaseProtocol.Failed;
import io.commitlane.actors.DatabaseProtocol.FailureReason;
import io.commitlane.actors.DatabaseProtocol.RefusedReply;
import io.commitlane.actors.DatabaseProtocol.Reply;
import io.commitlane.actors.DatabaseProtocol.Request;
import io.commitlane.actors.internal.protocol.ReplyLimit;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Every request gets exactly one reply, delivered to the handler of the request that caused it.
 * Pekko delivers a message to the last-registered message adapter whose class matches it, so an
 * actor with one adapter per reply family (the type a request's {@code replyTo} accepts) gets a
 * reply on the right adapter only if no reply class belongs to two families. That is checked here
 * over every class that can be a reply, with the refusals that make it possible: each family has
 * its own, and each request is refused with its family's.
 */
class ReplyFamiliesTest {
  /** The reply families: what the requests' {@code replyTo} accept. */
  static Set<Class<?>> families() {
    Set<Class<?>> families = new LinkedHashSet<>();
    for (Class<?> request : Request.class.getPermittedSubclasses()) {
      families.add(replyFamily(request));
    }
    return families;
  }

  /** The type {@code request}'s {@code replyTo} accepts. */
  static Class<?> replyFamily(Class<?> request) {
    for (RecordComponent c : request.getRecordComponents()) {
      if (c.getName().equals("replyTo")) {
        return (Class<?>) ((ParameterizedType) c.getGenericType()).getActualTypeArguments()[0];
      }
    }
    throw new AssertionError(request.getSimpleName() + " has no replyTo");
  }

  /**
   * No class belongs to two reply families. The families and {@link Reply} are sealed, so walking
   * their permitted subtypes finds every class that can be in one: no class elsewhere (another
   * module, a user's) can implement them.
   */
  @Test
  void noClassBelongsToTwoReplyFamilies() {
    Set<Class<?>> families = families();
    assertEquals(9, families.size(), "the families as the requests' replyTo name them: " + families);
    assertTrue(Reply.class.isSealed(), "Reply is sealed");
    for (Class<?> family : families) {
      assertTrue(family.isSealed(), family.getSimpleName() + " is sealed: only the classes it permits are in it");
    }
    Set<String> inTwo = new TreeSet<>();
    List<Class<?>> replies = concrete(Reply.class);
    for (Class<?> reply : replies) {
      List<String> of = families.stream().filter(f -> f.isAssignableFrom(reply)).map(Class::getSimpleName).toList();
      if (of.size() != 1) {
        inTwo.add(reply.getSimpleName() + " " + of);
      }
    }
    assertEquals(new TreeSet<>(), inTwo,
        "a reply class must be in exactly one family: one in two reaches whichever family's adapter was registered last");
    assertTrue(replies.size() >= 2 * families.size(), "every family has its replies and its refusal: " + replies);
  }

  /** Each family has one refused reply, each request is refused with its own family's, and generic code finds the right one. */
  @Test
  void eachFamilyHasItsOwnRefusalAndEachRequestUsesIt() throws Exception {
    Set<Class<?>> families = families();
    Set<Class<?>> refusedFamilies = new LinkedHashSet<>();
    for (Class<?> refused : concrete(RefusedReply.class)) {
      Class<?> family = families.stream().filter(f -> f.isAssignableFrom(refused)).findFirst().orElseThrow();
      assertTrue(refusedFamilies.add(family), family.getSimpleName() + " has two refusals");
      RefusedReply sample = (RefusedReply) refused.getConstructor(long.class, DatabaseProtocol.Refusal.class)
          .newInstance(7L, new Failed(FailureReason.OVERLOADED, "full", true));
      assertEquals(refused, ReplyLimit.refusedAs(sample, sample.refusal()).getClass(),
          "a reply of " + family.getSimpleName() + " is refused as that family's");
      assertTrue(sample.is(FailureReason.OVERLOADED) && sample.retryable() && sample.message().equals("full"));
    }
    assertEquals(families, refusedFamilies, "a family without a refusal of its own");
    for (Class<?> request : Request.class.getPermittedSubclasses()) {
      Class<?> returned = request.getMethod("refused", DatabaseProtocol.Refusal.class).getReturnType();
      Class<?> family = replyFamily(request);
      assertTrue(family.isAssignableFrom(returned) && RefusedReply.class.isAssignableFrom(returned),
          request.getSimpleName() + ".refused returns " + returned.getSimpleName() + ", not a refusal of " + family.getSimpleName());
    }
  }

  /** The concrete classes under a sealed type. */
  private static List<Class<?>> concrete(Class<?> sealed) {
    List<Class<?>> out = new ArrayList<>();
    for (Class<?> c : sealed.getPermittedSubclasses()) {
      if (c.isSealed()) {
        out.addAll(concrete(c));
      } else if (!c.isInterface()) {
        out.add(c);
      }
    }
    return out.stream().distinct().toList();
  }
}
