package io.commitlane.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The BOM users import names the versions the build is tested with: every version it sets equals
 * the build's own (the root pom's property of the same name).
 */
class BomVersionsTest {
  private static Map<String, String> properties(Path pom) throws Exception {
    Element root = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile()).getDocumentElement();
    NodeList nodes = ((Element) root.getElementsByTagName("properties").item(0)).getChildNodes();
    Map<String, String> found = new LinkedHashMap<>();
    for (int i = 0; i < nodes.getLength(); i++) {
      Node n = nodes.item(i);
      if (n instanceof Element e) {
        found.put(e.getTagName(), e.getTextContent().trim());
      }
    }
    return found;
  }

  @Test
  void theBomSetsTheVersionsTheBuildUses() throws Exception {
    Path repo = Path.of("").toAbsolutePath().getParent();
    Map<String, String> bom = properties(repo.resolve("bom/pom.xml"));
    Map<String, String> build = properties(repo.resolve("pom.xml"));
    assertFalse(bom.isEmpty());
    for (Map.Entry<String, String> e : bom.entrySet()) {
      if (e.getKey().equals("commitlane.version")) {
        continue;
      }
      assertEquals(build.get(e.getKey()), e.getValue(), "the BOM's " + e.getKey() + " against the build's");
    }
  }
}
