package io.commitlane.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module layering, checked on the compiled main classes of every module: storage and txlog
 * know nothing of Pekko or of the modules above them, txlog knows nothing of storage, the library
 * modules never reach into the testkit or the benchmarks, and no modules form a cycle.
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
          "io.commitlane.actors..", "io.commitlane.cluster..", "io.commitlane.testkit..", "io.commitlane.bench..")
      .because("storage is usable without Pekko and sits below every other module");

  static final ArchRule TXLOG_IS_JDK_ONLY = noClasses().that().resideInAPackage("io.commitlane.txlog..")
      .should().dependOnClassesThat().resideInAnyPackage("org.apache.pekko..", "scala..", "org.rocksdb..",
          "io.commitlane.storage..", "io.commitlane.actors..", "io.commitlane.cluster..", "io.commitlane.testkit..",
          "io.commitlane.bench..")
      .because("the transaction log depends on the JDK only");

  static final ArchRule ACTORS_KNOW_NOTHING_ABOVE_THEM = noClasses().that().resideInAPackage("io.commitlane.actors..")
      .should().dependOnClassesThat().resideInAnyPackage("io.commitlane.cluster..", "io.commitlane.testkit..",
          "io.commitlane.micrometer..", "io.commitlane.bench..", "io.commitlane.examples..")
      .because("actors is the library the cluster, testkit and micrometer modules build on");

  static final ArchRule LIBRARIES_NEVER_USE_THE_TESTKIT_OR_BENCHMARKS = noClasses()
      .that().resideInAnyPackage("io.commitlane.cluster..", "io.commitlane.micrometer..", "io.commitlane.replication..")
      .should().dependOnClassesThat().resideInAnyPackage("io.commitlane.testkit..", "io.commitlane.bench..",
          "io.commitlane.examples..")
      .because("the testkit and the benchmarks are for tests and measurements, not for production code");

  static final ArchRule REPLICATION_RUNS_WITHOUT_PEKKO = noClasses()
      .that().resideInAnyPackage("io.commitlane.replication", "io.commitlane.replication.internal..")
      .should().dependOnClassesThat().resideInAnyPackage("org.apache.pekko..", "scala..", "io.commitlane.actors..",
          "io.commitlane.cluster..", "io.commitlane.replication.actors..", "io.commitlane.testkit..", "io.commitlane.bench..")
      .because("replication needs storage and Ratis only; its actor front is the replication-actors module");

  static final ArchRule PERSISTENCE_USES_THE_PUBLIC_API = noClasses().that().resideInAPackage("io.commitlane.persistence..")
      .should().dependOnClassesThat().resideInAnyPackage("io.commitlane.testkit..", "io.commitlane.bench..",
          "io.commitlane.examples..", "io.commitlane.cluster..")
      .orShould().dependOnClassesThat().haveNameMatching("io\\.commitlane\\.actors\\.(DatabaseProtocol|DatabaseActor|internal\\.protocol\\.RequestHandler)(\\$.*)?")
      .because("the Pekko Persistence plugins are built on the public Java API (CommitlaneDatabase, Transaction, KeyRange),"
          + " not on the actor protocol, so changes to the protocol never reach them");

  static final ArchRule LOCAL_PERSISTENCE_CARRIES_NO_REPLICATION = noClasses()
      .that().resideInAnyPackage("io.commitlane.persistence", "io.commitlane.persistence.internal..",
          "io.commitlane.persistence.javadsl..", "io.commitlane.persistence.scaladsl..")
      .should().dependOnClassesThat().resideInAnyPackage("io.commitlane.replication..", "org.apache.ratis..",
          "io.commitlane.persistence.replicated..")
      .because("a service on local databases does not carry Raft: the replicated store is the persistence-replicated"
          + " module's, found through PluginStoreFactory");

  static final ArchRule NO_MODULE_CYCLES = slices().matching("io.commitlane.(*)..").should().beFreeOfCycles();

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
  void clusterReplicationAndMicrometerNeverUseTheTestkitOrBenchmarks() {
    LIBRARIES_NEVER_USE_THE_TESTKIT_OR_BENCHMARKS.check(main);
  }

  @Test
  void replicationImportsNoPekkoAndNoModuleAboveIt() {
    REPLICATION_RUNS_WITHOUT_PEKKO.check(main);
  }

  @Test
  void thePersistencePluginsCarryNoReplicationForLocalUsers() {
    LOCAL_PERSISTENCE_CARRIES_NO_REPLICATION.check(main);
  }

  @Test
  void noModulesFormACycle() {
    NO_MODULE_CYCLES.check(main);
  }

  /** The rules are not vacuous: a class that breaks each one is caught. */
  @Test
  void eachRuleCatchesAForbiddenImport() {
    JavaClasses offenders = new ClassFileImporter().importClasses(
        io.commitlane.storage.layeringfixture.StorageUsingPekko.class,
        io.commitlane.txlog.layeringfixture.TxlogUsingStorage.class,
        io.commitlane.actors.layeringfixture.ActorsUsingTheTestkit.class);
    assertThrows(AssertionError.class, () -> STORAGE_IS_PLAIN_JAVA_AND_ROCKSDB.check(offenders));
    assertThrows(AssertionError.class, () -> TXLOG_IS_JDK_ONLY.check(offenders));
    assertThrows(AssertionError.class, () -> ACTORS_KNOW_NOTHING_ABOVE_THEM.check(offenders));
  }
}
