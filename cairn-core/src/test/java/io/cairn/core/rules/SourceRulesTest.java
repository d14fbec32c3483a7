package io.cairn.core.rules;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rules of the code base the build checks (issue 27 item 5), by reading the sources: a few regular
 * expressions over comment- and string-free text, in well under a second.
 *
 * <ul>
 *   <li>cairn-core is protocol logic: it reads no clock, starts no thread, touches no file and reads no
 *       system property; those come in through injected ports. The exceptions are listed by file with why.</li>
 *   <li>Main code names types by import, not inline by their fully qualified name; files written
 *       before this rule are held at their count in {@code qualified-names-baseline.txt} (it may only go down:
 *       {@code tools/qualified-names.py FILE...} rewrites them with imports).</li>
 *   <li>Relative links in README.md and docs/*.md resolve to files in the repository.</li>
 * </ul>
 */
class SourceRulesTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path CORE = ROOT.resolve("cairn-core/src/main/java");

    private static final Map<String, Pattern> CORE_FORBIDDEN = Map.of(
            "reads a clock", Pattern.compile("System\\s*(\\.|::)\\s*(currentTimeMillis|nanoTime)|\\b(Instant|LocalDateTime|LocalDate|ZonedDateTime|OffsetDateTime)\\.now\\(|Clock\\.system"),
            "starts or parks threads", Pattern.compile("new\\s+Thread\\s*\\(|\\bThread\\.(sleep|ofVirtual|ofPlatform|startVirtualThread)|\\bExecutors\\.|ForkJoinPool|new\\s+Timer\\s*\\(|CompletableFuture\\.(runAsync|supplyAsync)"),
            "touches files", Pattern.compile("\\bjava\\.nio\\.file\\b|\\bjava\\.io\\.File\\b|\\bFiles\\.|\\bPaths\\.|\\bPath\\.of\\(|\\bFile(Input|Output)Stream\\b|\\bRandomAccessFile\\b|\\bFileChannel\\b|\\bFile(Reader|Writer)\\b|new\\s+File\\s*\\("),
            "reads system properties or the environment", Pattern.compile("System\\.(getProperty|setProperty|getenv|getProperties)|\\b(Boolean\\.getBoolean|Long\\.getLong|Integer\\.getInteger)\\("));

    /** Core files allowed one of the above, and why. Keep it short: each is a port waiting to be cut out. */
    private static final Map<String, String> CORE_EXCEPTIONS = Map.of(
            "io/cairn/core/tls/ClusterTls.java", "loads the cluster's PEM files and reloads them on change (its default clock is injectable)",
            "io/cairn/core/tls/PemFiles.java", "reads PEM files",
            "io/cairn/core/tls/ReloadingFiles.java", "watches certificate files for changes",
            "io/cairn/core/tls/LocalCertificateAuthority.java", "writes cairn up's local CA and certificates; their validity starts now",
            "io/cairn/core/wire/InProcessDataPlane.java", "a JVM-wide registry switched off by a system property (issue 27 item 1 moves it out of core)");

    private static final Pattern QUALIFIED_NAME = Pattern.compile(
            "(?<![\\w.])(?:java|javax|jdk|io|org|com|net|picocli|software)(?:\\.[a-z_][a-z0-9_]*)+\\.[A-Z]\\w*");
    private static final Pattern MARKDOWN_LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

    @Test
    void coreReadsNoClockStartsNoThreadTouchesNoFileAndReadsNoSystemProperty() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path file : javaFiles(CORE)) {
            String rel = CORE.relativize(file).toString().replace('\\', '/');
            String code = codeOnly(Files.readString(file));
            for (var rule : CORE_FORBIDDEN.entrySet()) {
                Matcher m = rule.getValue().matcher(code);
                if (m.find() && !CORE_EXCEPTIONS.containsKey(rel)) broken.add(rel + " " + rule.getKey() + ": " + m.group());
            }
        }
        assertThat(broken).as("cairn-core is protocol logic: clocks, threads, files and properties come in through ports").isEmpty();
        for (String excepted : CORE_EXCEPTIONS.keySet()) {
            assertThat(CORE.resolve(excepted)).as("an exception that no longer exists should leave the list").exists();
        }
    }

    @Test
    void mainCodeNamesTypesByImportNotByQualifiedName() throws IOException {
        Map<String, Integer> baseline = baseline();
        List<String> broken = new ArrayList<>();
        for (Path file : mainSources()) {
            String rel = ROOT.relativize(file).toString().replace('\\', '/');
            List<String> found = qualifiedNames(Files.readString(file));
            int allowed = baseline.getOrDefault(rel, 0);
            if (found.size() > allowed) {
                broken.add(rel + " has " + found.size() + " inline qualified type names (allowed " + allowed + "), e.g. " + found.get(found.size() - 1));
            }
        }
        assertThat(broken).as("import the type instead (tools/qualified-names.py FILE rewrites a file)").isEmpty();
    }

    @Test
    void relativeLinksInTheDocsResolveToFilesInTheRepository() throws IOException {
        List<Path> docs = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> s = Files.list(ROOT.resolve("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        List<String> broken = new ArrayList<>();
        for (Path doc : docs) {
            Matcher m = MARKDOWN_LINK.matcher(withoutCodeBlocks(Files.readString(doc)));
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("^[a-z][a-z0-9+.-]*:.*") || target.startsWith("#")) continue; // a URL or an anchor in the same page
                String path = target.replaceAll("#.*$", "");
                Path resolved = doc.getParent().resolve(path).normalize();
                if (!resolved.startsWith(ROOT) || !Files.exists(resolved)) broken.add(ROOT.relativize(doc) + " -> " + target);
            }
        }
        assertThat(broken).as("relative links in README.md and docs/*.md").isEmpty();
    }

    @Test
    void theRulesSeeCodeAndIgnoreCommentsStringsAndImports() {
        String source = "package a.b;\nimport java.util.Map;\nclass A {\n  java.util.List<String> x = java.util.List.of(); // java.util.Set\n"
                + "  /* org.slf4j.Logger */ String s = \"io.cairn.core.X\"; char c = '\"'; long t = io.cairn.core.WireCodes.index(null, null).length;\n}\n";
        assertThat(qualifiedNames(source)).containsExactly("java.util.List", "java.util.List", "io.cairn.core.WireCodes");
        String code = codeOnly("long now = System.nanoTime(); LongSupplier c = System::currentTimeMillis; // Thread.sleep(1)\n");
        assertThat(CORE_FORBIDDEN.get("reads a clock").matcher(code).results().count()).isEqualTo(2);
        assertThat(CORE_FORBIDDEN.get("starts or parks threads").matcher(code).find()).isFalse();
    }

    /** The inline qualified type names in {@code source}'s code (not its imports, comments or strings). */
    static List<String> qualifiedNames(String source) {
        List<String> found = new ArrayList<>();
        for (String line : codeOnly(source).split("\n")) {
            String t = line.strip();
            if (t.startsWith("import ") || t.startsWith("package ")) continue;
            Matcher m = QUALIFIED_NAME.matcher(line);
            while (m.find()) found.add(m.group());
        }
        return found;
    }

    /** {@code source} with comments, string and character literals and text blocks blanked (line breaks kept). */
    static String codeOnly(String source) {
        StringBuilder out = new StringBuilder(source.length());
        int i = 0;
        int n = source.length();
        while (i < n) {
            char c = source.charAt(i);
            if (source.startsWith("//", i)) {
                while (i < n && source.charAt(i) != '\n') i++;
            } else if (source.startsWith("/*", i)) {
                int end = source.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
                blank(source, i, end, out);
                i = end;
            } else if (source.startsWith("\"\"\"", i)) {
                int end = source.indexOf("\"\"\"", i + 3);
                end = end < 0 ? n : end + 3;
                blank(source, i, end, out);
                i = end;
            } else if (c == '"' || c == '\'') {
                int j = i + 1;
                while (j < n && source.charAt(j) != c && source.charAt(j) != '\n') j += source.charAt(j) == '\\' ? 2 : 1;
                out.append(c).append(c);
                i = Math.min(n, j + 1);
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    private static void blank(String source, int from, int to, StringBuilder out) {
        for (int k = from; k < to; k++) if (source.charAt(k) == '\n') out.append('\n');
    }

    private static String withoutCodeBlocks(String markdown) {
        return markdown.replaceAll("(?s)```.*?```", "").replaceAll("`[^`\n]*`", "");
    }

    private static Map<String, Integer> baseline() throws IOException {
        Map<String, Integer> counts = new TreeMap<>();
        try (var in = SourceRulesTest.class.getResourceAsStream("qualified-names-baseline.txt")) {
            if (in == null) return counts;
            for (String line : new String(in.readAllBytes()).split("\n")) {
                if (line.isBlank() || line.startsWith("#")) continue;
                String[] parts = line.trim().split("\\s+");
                counts.put(parts[1], Integer.parseInt(parts[0]));
            }
        }
        return counts;
    }

    private static List<Path> mainSources() throws IOException {
        List<Path> all = new ArrayList<>();
        try (Stream<Path> modules = Files.list(ROOT)) {
            for (Path module : modules.filter(p -> Files.isDirectory(p.resolve("src/main/java"))).sorted().toList()) {
                all.addAll(javaFiles(module.resolve("src/main/java")));
            }
        }
        return all;
    }

    private static List<Path> javaFiles(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
