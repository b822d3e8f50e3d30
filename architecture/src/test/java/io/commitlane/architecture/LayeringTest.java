package io.commitlane.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module layering, checked on the compiled main classes of every library module: storage and
 * txlog know nothing of Pekko or of the modules above them, txlog knows nothing of storage, the
 * library modules never reach into the testkit or the examples, replication runs without Pekko,
 * and the persistence plugins use the public Java API and, for local users, carry no Raft.
 *
 * <p>Each rule is shown to fail: {@link #eachRuleCatchesTheClassThatBreaksIt()} runs it against a
 * fixture class (in this module's test sources, in a package that imitates the module it stands
 * for) that breaks it, and every rule declared here must have one. What Maven already forbids is
 * not repeated: a cycle between modules, and a library depending on the benchmarks (the benchmarks
 * depend on every library module, so that dependency would be a cycle the reactor rejects).
 */
class LayeringTest {
  private static JavaClasses main;

  @BeforeAll
  static void importMainClasses() {
    main = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.commitlane");
  }

  static final ArchRule STORAGE_IS_PLAIN_JAVA_AND_ROCKSDB = noClasses().that().resideInAPackage("io.commitlane.storage..")
      .should().dependOnClassesThat().resideInAnyPackage("org.apache.pekko..", "scala..", "io.commitlane.txlog..",
          "io.commitlane.actors..", "io.commitlane.cluster..", "io.commitlane.testkit..")
      .because("storage is usable without Pekko and sits below every other module");

  static final ArchRule TXLOG_IS_JDK_ONLY = noClasses().that().resideInAPackage("io.commitlane.txlog..")
      .should().dependOnClassesThat().resideInAnyPackage("org.apache.pekko..", "scala..", "org.rocksdb..",
          "io.commitlane.storage..", "io.commitlane.actors..", "io.commitlane.cluster..", "io.commitlane.testkit..")
      .because("the transaction log depends on the JDK only");

  static final ArchRule ACTORS_KNOW_NOTHING_ABOVE_THEM = noClasses().that().resideInAPackage("io.commitlane.actors..")
      .should().dependOnClassesThat().resideInAnyPackage("io.commitlane.cluster..", "io.commitlane.testkit..",
          "io.commitlane.micrometer..")
      .because("actors is the library the cluster, testkit and micrometer modules build on");

  static final ArchRule LIBRARIES_NEVER_USE_THE_TESTKIT_OR_EXAMPLES = noClasses()
      .that().resideInAnyPackage("io.commitlane.cluster..", "io.commitlane.micrometer..", "io.commitlane.replication..")
      .should().dependOnClassesThat().resideInAnyPackage("io.commitlane.testkit..", "io.commitlane.examples..")
      .because("the testkit and the examples are for tests and for reading, not for production code");

  static final ArchRule REPLICATION_RUNS_WITHOUT_PEKKO = noClasses()
      .that().resideInAnyPackage("io.commitlane.replication", "io.commitlane.replication.internal..")
      .should().dependOnClassesThat().resideInAnyPackage("org.apache.pekko..", "scala..", "io.commitlane.actors..",
          "io.commitlane.cluster..", "io.commitlane.replication.actors..", "io.commitlane.testkit..")
      .because("replication needs storage and Ratis only; its actor front is the replication-actors module");

  /** The protocol's types are matched by name in any actors package, so a move under actors' internal packages keeps the rule. */
  static final ArchRule PERSISTENCE_USES_THE_PUBLIC_API = noClasses().that().resideInAPackage("io.commitlane.persistence..")
      .should().dependOnClassesThat().resideInAnyPackage("io.commitlane.testkit..", "io.commitlane.examples..",
          "io.commitlane.cluster..")
      .orShould().dependOnClassesThat()
      .haveNameMatching("io\\.commitlane\\.actors\\.([\\w.]+\\.)?(DatabaseProtocol|DatabaseActor|RequestHandler)(\\$.*)?")
      .because("the Pekko Persistence plugins are built on the public Java API (CommitlaneDatabase, Transaction, KeyRange),"
          + " not on the actor protocol, so changes to the protocol never reach them");

  static final ArchRule LOCAL_PERSISTENCE_CARRIES_NO_REPLICATION = noClasses()
      .that().resideInAnyPackage("io.commitlane.persistence", "io.commitlane.persistence.internal..",
          "io.commitlane.persistence.javadsl..", "io.commitlane.persistence.scaladsl..")
      .should().dependOnClassesThat().resideInAnyPackage("io.commitlane.replication..", "org.apache.ratis..",
          "io.commitlane.persistence.replicated..")
      .because("a service on local databases does not carry Raft: the replicated store is the persistence-replicated"
          + " module's, found through PluginStoreFactory");

  /** Each rule and the fixture classes that break it. */
  static Map<ArchRule, List<Class<?>>> violations() {
    Map<ArchRule, List<Class<?>>> v = new LinkedHashMap<>();
    v.put(STORAGE_IS_PLAIN_JAVA_AND_ROCKSDB, List.of(io.commitlane.storage.layeringfixture.StorageUsingPekko.class));
    v.put(TXLOG_IS_JDK_ONLY, List.of(io.commitlane.txlog.layeringfixture.TxlogUsingStorage.class));
    v.put(ACTORS_KNOW_NOTHING_ABOVE_THEM, List.of(io.commitlane.actors.layeringfixture.ActorsUsingTheTestkit.class));
    v.put(LIBRARIES_NEVER_USE_THE_TESTKIT_OR_EXAMPLES, List.of(
        io.commitlane.cluster.layeringfixture.ClusterUsingTheTestkit.class,
        io.commitlane.cluster.layeringfixture.ClusterUsingTheExamples.class));
    v.put(REPLICATION_RUNS_WITHOUT_PEKKO, List.of(io.commitlane.replication.internal.layeringfixture.ReplicationUsingPekko.class));
    v.put(PERSISTENCE_USES_THE_PUBLIC_API, List.of(io.commitlane.persistence.layeringfixture.PersistenceUsingTheProtocol.class));
    v.put(LOCAL_PERSISTENCE_CARRIES_NO_REPLICATION, List.of(
        io.commitlane.persistence.internal.layeringfixture.LocalPersistenceUsingReplication.class));
    return v;
  }

  @Test
  void persistenceIsBuiltOnThePublicJavaApiNotTheActorProtocol() {
    PERSISTENCE_USES_THE_PUBLIC_API.check(main);
  }

  @Test
  void storageImportsNeitherPekkoNorAnyModuleAboveIt() {
    STORAGE_IS_PLAIN_JAVA_AND_ROCKSDB.check(main);
  }

  @Test
  void txlogImportsOnlyTheJdk() {
    TXLOG_IS_JDK_ONLY.check(main);
  }

  @Test
  void actorsImportNoModuleAboveThem() {
    ACTORS_KNOW_NOTHING_ABOVE_THEM.check(main);
  }

  @Test
  void clusterReplicationAndMicrometerNeverUseTheTestkitOrExamples() {
    LIBRARIES_NEVER_USE_THE_TESTKIT_OR_EXAMPLES.check(main);
  }

  @Test
  void replicationImportsNoPekkoAndNoModuleAboveIt() {
    REPLICATION_RUNS_WITHOUT_PEKKO.check(main);
  }

  @Test
  void thePersistencePluginsCarryNoReplicationForLocalUsers() {
    LOCAL_PERSISTENCE_CARRIES_NO_REPLICATION.check(main);
  }

  /**
   * No rule is vacuous: each fails on every fixture class that breaks it, each fixture alone, and
   * the failure names the fixture (a rule whose classes match none of the fixture fails too, with
   * "failed to check any classes", which is not a catch).
   */
  @Test
  void eachRuleCatchesTheClassThatBreaksIt() {
    List<String> missed = new ArrayList<>();
    violations().forEach((rule, offenders) -> {
      for (Class<?> offender : offenders) {
        try {
          rule.check(new ClassFileImporter().importClasses(offender));
          missed.add(offender.getSimpleName() + " passed: " + rule.getDescription());
        } catch (AssertionError failure) {
          if (failure.getMessage() == null || !failure.getMessage().contains(offender.getName())) {
            missed.add(offender.getSimpleName() + " failed for another reason: " + failure.getMessage());
          }
        }
      }
    });
    assertEquals(List.of(), missed, "rules that let a class breaking them pass");
  }

  /** A rule added here without a fixture that breaks it fails the build. */
  @Test
  void everyRuleHasAFixtureThatBreaksIt() throws IllegalAccessException {
    TreeSet<String> without = new TreeSet<>();
    Map<ArchRule, List<Class<?>>> violations = violations();
    for (Field f : LayeringTest.class.getDeclaredFields()) {
      if (Modifier.isStatic(f.getModifiers()) && ArchRule.class.isAssignableFrom(f.getType())
          && !violations.containsKey((ArchRule) f.get(null))) {
        without.add(f.getName());
      }
    }
    assertEquals(new TreeSet<>(), without, "rules without a fixture class that breaks them (add one to violations())");
  }
}
