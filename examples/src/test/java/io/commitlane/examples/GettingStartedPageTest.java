package io.commitlane.examples;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.commitlane.storage.Database;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringWriter;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * docs/getting-started.md shows a complete first project. Its pom names the versions the build
 * really uses (the BOM's coordinates, the compiler plugin and Java release of the build), a
 * logging backend the BOM manages and the program's main class; its program is the README's
 * first example, and it compiles and runs here against the modules of this build. (Building the
 * page's pom with Maven needs commitlane installed in a Maven repository, which a test does not do.)
 */
class GettingStartedPageTest {
  private static final Path REPO = Path.of("").toAbsolutePath().getParent();

  @TempDir Path dir;

  private static String fenced(String page, String marker, String lang) {
    int at = page.indexOf(marker);
    assertTrue(at >= 0, "the page has no " + marker + " marker");
    String open = "```" + lang + "\n";
    int from = page.indexOf(open, at) + open.length();
    return page.substring(from, page.indexOf("```\n", from));
  }

  private static String page() throws Exception {
    return Files.readString(REPO.resolve("docs/getting-started.md"));
  }

  private static Element parse(String xml) throws Exception {
    return DocumentBuilderFactory.newInstance().newDocumentBuilder()
        .parse(new java.io.ByteArrayInputStream(xml.getBytes(UTF_8))).getDocumentElement();
  }

  private static String child(Element e, String tag) {
    NodeList nodes = e.getChildNodes();
    for (int i = 0; i < nodes.getLength(); i++) {
      if (nodes.item(i) instanceof Element c && c.getTagName().equals(tag)) {
        return c.getTextContent().trim();
      }
    }
    return null;
  }

  private static List<Element> all(Element root, String tag) {
    List<Element> out = new ArrayList<>();
    NodeList nodes = root.getElementsByTagName(tag);
    for (int i = 0; i < nodes.getLength(); i++) {
      out.add((Element) nodes.item(i));
    }
    return out;
  }

  private static Element withArtifact(List<Element> elements, String artifactId) {
    return elements.stream().filter(e -> artifactId.equals(child(e, "artifactId"))).findFirst()
        .orElseThrow(() -> new AssertionError("the page's pom has no " + artifactId));
  }

  /** The text of the first {@code tag} under {@code root}'s {@code properties}. */
  private static String property(Element root, String tag) {
    return child((Element) root.getElementsByTagName("properties").item(0), tag);
  }

  @Test
  void thePomNamesTheVersionsTheBuildUses() throws Exception {
    Element pom = parse(fenced(page(), "<!-- getting-started: pom.xml", "xml"));
    Element bom = parse(Files.readString(REPO.resolve("bom/pom.xml")));
    Element build = parse(Files.readString(REPO.resolve("pom.xml")));

    Element imported = withArtifact(all(pom, "dependency"), "commitlane-bom");
    assertEquals(child(bom, "groupId"), child(imported, "groupId"));
    assertEquals(child(bom, "version"), child(imported, "version"), "the BOM version the page imports");
    assertEquals("pom", child(imported, "type"));
    assertEquals("import", child(imported, "scope"));
    assertEquals(null, child(withArtifact(all(pom, "dependency"), "commitlane-actors"), "version"), "the BOM sets it");

    // A logging backend, whose version the BOM manages (the one the tests log through).
    Element logback = withArtifact(all(pom, "dependency"), "logback-classic");
    assertEquals(null, child(logback, "version"), "the BOM sets it");
    assertEquals(property(bom, "logback.version"), property(build, "logback.version"));
    withArtifact(all(bom, "dependency"), "logback-classic");

    // The compiler plugin and release the build uses (Maven 3.8's default compiler plugin cannot target 17).
    Element compiler = withArtifact(all(pom, "plugin"), "maven-compiler-plugin");
    assertEquals(child(withArtifact(all(build, "plugin"), "maven-compiler-plugin"), "version"), child(compiler, "version"));
    assertEquals(property(build, "maven.compiler.release"), compiler.getElementsByTagName("release").item(0).getTextContent());

    String program = fenced(page(), "<!-- getting-started: Main.java", "java");
    String pkg = program.lines().filter(l -> l.startsWith("package ")).findFirst().orElseThrow()
        .replace("package ", "").replace(";", "").trim();
    Element exec = withArtifact(all(pom, "plugin"), "exec-maven-plugin");
    assertEquals(pkg + ".Main", exec.getElementsByTagName("mainClass").item(0).getTextContent());
  }

  @Test
  void theProgramIsTheReadmeExampleAndItCompilesAndRuns() throws Exception {
    String program = fenced(page(), "<!-- getting-started: Main.java", "java");
    String readme = fenced(Files.readString(REPO.resolve("README.md")), "<!-- README: getting-started", "java");
    StringBuilder indented = new StringBuilder();
    readme.lines().forEach(l -> indented.append(l.isBlank() ? "" : "    " + l).append('\n'));
    assertTrue(program.contains(indented), "the page's program holds the README's first example as it stands:\n" + readme);

    Path source = dir.resolve("src/com/example/shop/Main.java");
    Files.createDirectories(source.getParent());
    Files.writeString(source, program);
    Path classes = Files.createDirectories(dir.resolve("classes"));
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    StringWriter diagnostics = new StringWriter();
    boolean compiled = javac.getTask(diagnostics, null, null, List.of("--release", "17", "-d", classes.toString(),
        "-classpath", System.getProperty("java.class.path")), null,
        javac.getStandardFileManager(null, null, UTF_8).getJavaFileObjects(source.toFile())).call();
    assertTrue(compiled, diagnostics.toString());

    PrintStream original = System.out;
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    System.setOut(new PrintStream(printed, true, UTF_8));
    try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, getClass().getClassLoader())) {
      loader.loadClass("com.example.shop.Main").getMethod("main", String[].class).invoke(null, (Object) new String[] {dir.toString()});
    } finally {
      System.setOut(original);
    }
    String out = printed.toString(UTF_8);
    assertTrue(out.contains("committed, version ") && out.contains("order-1: paid"), out);
    try (Database db = Database.open(dir.resolve("shop"))) {
      byte[] value = db.get("order-1".getBytes(UTF_8));
      assertNotNull(value, "the commit is in the database the program closed");
      assertEquals("paid", new String(value, UTF_8));
    }
  }
}
