package io.cairn.core.testing;

import org.junit.jupiter.api.Assumptions;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * An external program a test runs (redis-cli, redis-benchmark from Debian's redis-tools), looked
 * up on the PATH. When it is missing the test is skipped with a message naming the package, except
 * under {@code CI=true}, where it fails: CI installs the tools (.ci/run), so a missing one there is
 * a broken setup, never a silent skip.
 */
public final class ExternalTool {
    private ExternalTool() {}

    /** The program {@code name} on the PATH; skips the calling test when missing (fails it under CI=true). */
    public static Path require(String name, String debianPackage) {
        return require(name, debianPackage, System.getenv());
    }

    static Path require(String name, String debianPackage, Map<String, String> env) {
        Optional<Path> found = onPath(name, env.getOrDefault("PATH", ""));
        if (found.isPresent()) return found.get();
        String missing = name + " is not on the PATH (install it with: apt-get install " + debianPackage + ")";
        if ("true".equalsIgnoreCase(env.get("CI"))) {
            throw new AssertionError(missing + "; CI=true, so this test fails instead of being skipped");
        }
        return Assumptions.abort(missing + "; skipped locally (it fails under CI=true)");
    }

    /** The first executable file called {@code name} in the directories of {@code path}. */
    static Optional<Path> onPath(String name, String path) {
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isEmpty()) continue;
            try {
                Path candidate = Path.of(dir, name);
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) return Optional.of(candidate);
            } catch (InvalidPathException ignored) {
                // a malformed PATH entry holds no program
            }
        }
        return Optional.empty();
    }
}
