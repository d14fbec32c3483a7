package io.cairn.core.testing;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.TestAbortedException;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ExternalToolTest {
    @TempDir
    Path dir;

    @Test
    void aToolOnThePathIsFoundInAnyOfItsDirectories() throws Exception {
        Path tool = executable(dir.resolve("bin"), "some-tool");
        String path = dir.resolve("empty") + File.pathSeparator + tool.getParent();

        assertThat(ExternalTool.require("some-tool", "some-package", Map.of("PATH", path, "CI", "true"))).isEqualTo(tool);
    }

    @Test
    void aMissingToolSkipsTheTestLocallyNamingItsPackage() {
        assertThatThrownBy(() -> ExternalTool.require("some-tool", "some-package", Map.of("PATH", dir.toString())))
                .isInstanceOf(TestAbortedException.class)
                .hasMessageContaining("some-tool is not on the PATH").hasMessageContaining("apt-get install some-package");
    }

    @Test
    void aMissingToolFailsTheTestUnderCi() {
        assertThatThrownBy(() -> ExternalTool.require("some-tool", "some-package", Map.of("PATH", dir.toString(), "CI", "true")))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("some-tool is not on the PATH").hasMessageContaining("CI=true");
    }

    @Test
    void aFileThatIsNotExecutableIsNotTheTool() throws Exception {
        Files.createFile(dir.resolve("some-tool"));

        assertThat(ExternalTool.onPath("some-tool", dir.toString())).isEmpty();
    }

    private static Path executable(Path directory, String name) throws Exception {
        Files.createDirectories(directory);
        return Files.createFile(directory.resolve(name), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
    }
}
