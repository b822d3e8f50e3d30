package io.commitlane.actors;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.HierarchyTraversalMode;

/**
 * One {@link ActorTestKit} per test class, in the class's static field marked {@link JUnit5TestKit},
 * shut down after the class. Pekko's TestKitJUnit5Extension reads an instance field, which JUnit
 * creates anew for every test method (a system per test, only the last shut down); this module's
 * tests share one system per class. (The testkit's @CommitlaneTest does the same for users; it
 * builds on this module, so this module's tests cannot use it.)
 *
 * <pre>{@code
 * @ExtendWith({LogCapturingExtension.class, ClassTestKit.class})
 * class SomeTest {
 *   @JUnit5TestKit static ActorTestKit testKit;
 * }
 * }</pre>
 */
public final class ClassTestKit implements BeforeAllCallback, AfterAllCallback {
  @Override
  public void beforeAll(ExtensionContext context) throws IllegalAccessException {
    ActorTestKit kit = ActorTestKit.create();
    field(context).set(null, kit);
  }

  @Override
  public void afterAll(ExtensionContext context) throws IllegalAccessException {
    Field f = field(context);
    ActorTestKit kit = (ActorTestKit) f.get(null);
    if (kit != null) {
      f.set(null, null);
      kit.shutdownTestKit();
    }
  }

  private static Field field(ExtensionContext context) {
    Class<?> test = context.getRequiredTestClass();
    List<Field> fields = AnnotationSupport.findAnnotatedFields(test, JUnit5TestKit.class,
        f -> Modifier.isStatic(f.getModifiers()) && f.getType() == ActorTestKit.class, HierarchyTraversalMode.TOP_DOWN);
    if (fields.size() != 1) {
      throw new ExtensionConfigurationException(test.getSimpleName() + " needs exactly one static ActorTestKit field marked"
          + " @JUnit5TestKit for ClassTestKit; found " + fields.size());
    }
    Field f = fields.get(0);
    f.setAccessible(true);
    return f;
  }
}
