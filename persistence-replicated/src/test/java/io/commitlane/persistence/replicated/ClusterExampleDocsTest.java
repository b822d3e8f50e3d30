package io.commitlane.persistence.replicated;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.commitlane.testsupport.DocSnippets;
import org.junit.jupiter.api.Test;

/** persistence.md's three-node example is the file the process test's nodes run ({@link ShardedNode#example()}). */
class ClusterExampleDocsTest {
  @Test
  void thePageShowsTheConfigurationTheProcessTestsNodesRun() {
    String page = DocSnippets.read(DocSnippets.root().resolve("docs/persistence.md"));
    assertEquals(ShardedNode.example(), DocSnippets.fenced(page, "<!-- docs: three-node-cluster", "hocon"));
  }
}
