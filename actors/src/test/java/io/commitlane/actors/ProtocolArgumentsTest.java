package io.commitlane.actors;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.commitlane.actors.DatabaseProtocol.Request;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every record a request is built of refuses a missing or malformed argument with {@link
 * InvalidRequestException} naming the field, where the request is built: never a {@code
 * NullPointerException} or another untyped error, for every field of every request and value.
 */
@ExtendWith(ClassTestKit.class)
class ProtocolArgumentsTest {
  @JUnit5TestKit static ActorTestKit testKit;

  /** The records a request is made of, besides the requests themselves. */
  private static final List<Class<?>> VALUES = List.of(Mutation.class, Expectation.class, Key.class, LogEntries.class,
      RequestId.class, ScanRange.class);

  private static List<Class<?>> records() {
    List<Class<?>> all = new ArrayList<>(Arrays.asList(Request.class.getPermittedSubclasses()));
    all.addAll(VALUES);
    return all;
  }

  @Test
  void aNullForAnyFieldIsAcceptedOrRefusedTypedNamingTheField() throws Exception {
    for (Class<?> type : records()) {
      RecordComponent[] fields = type.getRecordComponents();
      Object[] valid = valid(fields);
      construct(type, valid); // the sample itself is a valid request
      for (int i = 0; i < fields.length; i++) {
        if (fields[i].getType().isPrimitive()) {
          continue;
        }
        Object[] args = valid.clone();
        args[i] = null;
        assertAcceptedOrNamed(type, fields[i], args, "null");
        if (fields[i].getType() == List.class) {
          List<Object> withNull = new ArrayList<>((List<?>) valid[i]);
          withNull.add(null);
          args[i] = withNull;
          assertAcceptedOrNamed(type, fields[i], args, "a list holding null");
          Throwable e = construct(type, args);
          assertTrue(e instanceof InvalidRequestException, type.getSimpleName() + "." + fields[i].getName()
              + " holding a null element is accepted");
        }
      }
    }
  }

  /** The reported case: a log record with a null entry. */
  @Test
  void aLogRecordWithANullEntryIsAnInvalidRequest() {
    InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> LogEntries.of("events", new byte[1], null));
    assertTrue(e.getMessage().contains("entries"), e.getMessage());
    assertThrows(InvalidRequestException.class, () -> LogEntries.of("events", (byte[][]) null));
  }

  /** The builders of a range refuse a missing key instead of silently leaving the bound open. */
  @Test
  void rangeBuildersRefuseAMissingKey() {
    ScanRange all = ScanRange.all(null);
    for (var build : List.<java.util.function.Function<byte[], ScanRange>>of(all::from, all::fromExclusive, all::to,
        all::toInclusive, key -> ScanRange.prefix(null, key))) {
      InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> build.apply(null));
      assertTrue(e.getMessage().contains("key") || e.getMessage().contains("prefix"), e.getMessage());
    }
    assertThrows(InvalidRequestException.class, () -> new DatabaseProtocol.Scan(all, 10, 1, testKit.createTestProbe(
        DatabaseProtocol.ScanReply.class).ref()).next(null, 2));
  }

  private static void assertAcceptedOrNamed(Class<?> type, RecordComponent field, Object[] args, String what) {
    Throwable e = construct(type, args);
    if (e == null) {
      return;
    }
    String where = type.getSimpleName() + "." + field.getName() + " = " + what;
    if (!(e instanceof InvalidRequestException)) {
      fail(where + " throws " + e + " instead of InvalidRequestException", e);
    }
    assertTrue(e.getMessage().toLowerCase(Locale.ROOT).contains(name(field).toLowerCase(Locale.ROOT)),
        where + ": the message does not name the field: " + e.getMessage());
  }

  /** How a message names a field: replyTo as it is, a multi-word name by its last word ("directory", "size"). */
  private static String name(RecordComponent field) {
    String n = field.getName();
    return n.equals("replyTo") ? n : n.replaceAll(".*(?=[A-Z])", "");
  }

  /** What the constructor threw (null: it built the record). */
  private static Throwable construct(Class<?> type, Object[] args) {
    try {
      Constructor<?> c = type.getDeclaredConstructor(Arrays.stream(type.getRecordComponents())
          .map(RecordComponent::getType).toArray(Class<?>[]::new));
      c.newInstance(args);
      return null;
    } catch (InvocationTargetException e) {
      return e.getCause();
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }

  private static Object[] valid(RecordComponent[] fields) {
    Object[] args = new Object[fields.length];
    for (int i = 0; i < fields.length; i++) {
      args[i] = sample(fields[i]);
    }
    return args;
  }

  private static Object sample(RecordComponent field) {
    Class<?> t = field.getType();
    byte[] k = "k".getBytes(UTF_8);
    if (t == long.class) {
      return 1L;
    } else if (t == int.class) {
      return field.getName().equals("limit") ? 0 : 10;
    } else if (t == boolean.class) {
      return field.getName().endsWith("Inclusive");
    } else if (t == byte[].class) {
      return k;
    } else if (t == String.class) {
      return field.getName().equals("log") ? "events" : field.getName().equals("value") ? "id-1" : "orders";
    } else if (t == ActorRef.class) {
      return testKit.createTestProbe().ref();
    } else if (t == Path.class) {
      return Path.of("target", "somewhere");
    } else if (t == Key.class) {
      return Key.of(k);
    } else if (t == ScanRange.class) {
      return ScanRange.all(null);
    } else if (t == LogEntries.class) {
      return LogEntries.of("events", k);
    } else if (t == RequestId.class) {
      return RequestId.of("id-1");
    } else if (t == List.class) {
      Type element = ((ParameterizedType) field.getGenericType()).getActualTypeArguments()[0];
      if (element == Mutation.class) {
        return List.of(Mutation.put(k, k));
      } else if (element == Expectation.class) {
        return List.of(Expectation.absent(k));
      } else if (element == Key.class) {
        return List.of(Key.of(k));
      } else if (element == byte[].class) {
        return List.of(k);
      }
    }
    throw new AssertionError("no sample for " + field + ": add one");
  }
}
