package io.commitlane.testkit.pekko;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import io.commitlane.actors.Commitlane;
import io.commitlane.actors.CommitlaneDatabase;
import io.commitlane.actors.PipelineMode;
import io.commitlane.actors.PipelineSettings;
import io.commitlane.actors.internal.config.PipelineKeys;
import io.commitlane.actors.WriteGroupSettings;
import io.commitlane.testkit.StageControl;
import java.io.IOException;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.testkit.typed.annotations.JUnit5TestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.HierarchyTraversalMode;

/**
 * What {@link CommitlaneTest} registers: resolves {@code ActorTestKit} and {@link TestDatabase}
 * parameters, and fills static {@code ActorTestKit} fields marked {@link JUnit5TestKit}.
 */
final class CommitlaneTestExtension implements ParameterResolver, BeforeAllCallback, AfterAllCallback {
  private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(CommitlaneTestExtension.class);
  private static final String COMMIT_THREADS = PipelineSettings.ROOT + "." + PipelineKeys.COMMIT_THREADS.key();
  /** The names of commit executor threads (DatabaseSupervisor names each {@code commitlane-commit-<db>-<n>}). */
  private static final String EXECUTOR_THREAD_PREFIX = "commitlane-commit-";

  @Override
  public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
    Class<?> type = p.getParameter().getType();
    return type == ActorTestKit.class || type == TestDatabase.class;
  }

  @Override
  public Object resolveParameter(ParameterContext p, ExtensionContext e) {
    ActorTestKit kit = testKit(e);
    if (p.getParameter().getType() == ActorTestKit.class) {
      return kit;
    }
    PipelineSettings settings = settings(e, kit);
    try {
      Path dir = Files.createTempDirectory("commitlane-test");
      CommitlaneDatabase database = Commitlane.get(kit.system()).open(dir.resolve("db"), settings);
      StageControl control = StageControl.install(database.storage());
      if (settings.mode() == PipelineMode.THREADS) {
        control.commitExecutors(settings.commitThreads(), EXECUTOR_THREAD_PREFIX);
      }
      TestDatabase db = new TestDatabase(database, control, dir);
      // Closed and deleted when the test ends (JUnit closes AutoCloseable values of its store).
      e.getStore(NS).put("db-" + p.getIndex() + "-" + System.identityHashCode(db), (AutoCloseable) db::closeAndDelete);
      return db;
    } catch (IOException ex) {
      throw new ParameterResolutionException("cannot create a temporary database directory", ex);
    }
  }

  /** Static {@code ActorTestKit} fields marked {@link JUnit5TestKit} get the class's kit. */
  @Override
  public void beforeAll(ExtensionContext e) throws IllegalAccessException {
    for (Field f : testKitFields(e)) {
      f.set(null, testKit(e));
    }
  }

  @Override
  public void afterAll(ExtensionContext e) throws IllegalAccessException {
    for (Field f : testKitFields(e)) {
      f.set(null, null);
    }
    ActorTestKit kit = e.getStore(NS).remove("testkit", ActorTestKit.class);
    if (kit != null) {
      kit.shutdownTestKit();
    }
  }

  /** The method's annotation over the class's; the system's config under both. */
  private static PipelineSettings settings(ExtensionContext e, ActorTestKit kit) {
    Optional<CommitlaneTest> onMethod = e.getTestMethod().flatMap(m -> AnnotationSupport.findAnnotation(m, CommitlaneTest.class));
    Optional<CommitlaneTest> onClass = e.getTestClass().flatMap(c -> AnnotationSupport.findAnnotation(c, CommitlaneTest.class));
    Config config = kit.system().settings().config();
    if (onMethod.isPresent()) {
      config = parse(onMethod.get(), e.getRequiredTestMethod()).withFallback(config);
    }
    int commitThreads = onMethod.or(() -> onClass).map(CommitlaneTest::commitThreads).orElse(2);
    if (commitThreads != 0) {
      config = config.withValue(COMMIT_THREADS, ConfigValueFactory.fromAnyRef(commitThreads));
    }
    // Merged write groups off: a schedule steps one commit at a time, and a commit held inside a
    // group would hold every member of it. Open a database yourself to test with groups.
    return PipelineSettings.fromConfig(config).withWriteGroups(WriteGroupSettings.off());
  }

  private static ActorTestKit testKit(ExtensionContext e) {
    ExtensionContext classContext = e.getTestClass().isPresent() && e.getParent().isPresent() && e.getTestMethod().isPresent()
        ? e.getParent().get() : e;
    return classContext.getStore(NS).getOrComputeIfAbsent("testkit", k -> {
      Optional<CommitlaneTest> onClass = classContext.getTestClass()
          .flatMap(c -> AnnotationSupport.findAnnotation(c, CommitlaneTest.class));
      if (onClass.isEmpty() || onClass.get().config().isBlank()) {
        return ActorTestKit.create();
      }
      Config config = parse(onClass.get(), classContext.getRequiredTestClass());
      return ActorTestKit.create(config.withFallback(ActorTestKit.applicationTestConfig()));
    }, ActorTestKit.class);
  }

  private static List<Field> testKitFields(ExtensionContext e) {
    List<Field> fields = AnnotationSupport.findAnnotatedFields(e.getRequiredTestClass(), JUnit5TestKit.class,
        f -> Modifier.isStatic(f.getModifiers()) && f.getType() == ActorTestKit.class, HierarchyTraversalMode.TOP_DOWN);
    fields.forEach(f -> f.setAccessible(true));
    return fields;
  }

  private static Config parse(CommitlaneTest annotation, AnnotatedElement where) {
    Config config;
    try {
      config = ConfigFactory.parseString(annotation.config());
    } catch (com.typesafe.config.ConfigException ex) {
      throw new ExtensionConfigurationException("@CommitlaneTest(config = ...) on " + where + " is not valid HOCON: "
          + ex.getMessage(), ex);
    }
    if (config.hasPath(COMMIT_THREADS)) {
      throw new ExtensionConfigurationException("@CommitlaneTest on " + where + " sets " + COMMIT_THREADS
          + " in config; set it with commitThreads = N (0 takes it from the actor system's config)");
    }
    return config;
  }
}
