package io.commitlane.examples;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The examples are written as an application would be: they use commitlane's public API only,
 * never a member marked INTERNAL API (commitlane's {@code @InternalApi} or Pekko's) nor a class in an
 * {@code internal} package.
 */
class PublicApiOnlyTest {
  @Test
  void theExamplesUseNoInternalApi() {
    JavaClasses examples = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.commitlane.examples");
    noClasses().should().dependOnClassesThat().areAnnotatedWith(io.commitlane.annotation.InternalApi.class)
        .orShould().dependOnClassesThat().areAnnotatedWith(org.apache.pekko.annotation.InternalApi.class)
        .orShould().dependOnClassesThat().resideInAPackage("io.commitlane..internal..")
        .orShould().callMethodWhere(com.tngtech.archunit.core.domain.JavaCall.Predicates.target(
            com.tngtech.archunit.core.domain.properties.CanBeAnnotated.Predicates.annotatedWith(io.commitlane.annotation.InternalApi.class)))
        .because("the examples show what an application may use")
        .check(examples);
  }
}
