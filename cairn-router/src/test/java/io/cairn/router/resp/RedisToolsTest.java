package io.cairn.router.resp;

import io.cairn.core.testing.ExternalTool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The stock Redis command-line tools (Debian's redis-tools) work unchanged. Their tests skip when
 * the tools are not on the PATH, and fail then under CI=true ({@link ExternalTool}).
 */
class RedisToolsTest {
    private static final String REDIS_TOOLS = "redis-tools";
    private static final long TOOL_TIMEOUT_SECONDS = 120;

    @TempDir
    Path temp;
    private TestServer server;

    record Run(int exitCode, String output) {}

    @BeforeEach
    void start() {
        server = new TestServer(new InMemoryKvBackend());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void inlineCommandsOverARawSocketAreServed() {
        try (RawClient client = server.client()) {
            assertThat(client.send("PING\r\n").read()).isEqualTo("PONG");
            assertThat(client.send("SET inline-key inline-value\r\n").read()).isEqualTo("OK");
            assertThat(client.send("\r\nget   inline-key\r\n").read()).isEqualTo("inline-value");
            assertThat(client.send("ECHO\r\n").read())
                    .isEqualTo(new RawClient.Err("ERR wrong number of arguments for 'echo' command"));
        }
    }

    @Test
    void redisCliRunsDataCommands() throws Exception {
        Path redisCli = ExternalTool.require("redis-cli", REDIS_TOOLS);
        assertThat(cli(redisCli, "PING").output()).isEqualTo("PONG");
        assertThat(cli(redisCli, "SET", "cli-key", "cli value").output()).isEqualTo("OK");
        assertThat(cli(redisCli, "GET", "cli-key").output()).isEqualTo("cli value");
        assertThat(cli(redisCli, "INCRBY", "cli-counter", "5").output()).isEqualTo("5");
        assertThat(cli(redisCli, "MSET", "a", "1", "b", "2").output()).isEqualTo("OK");
        assertThat(cli(redisCli, "--no-raw", "MGET", "a", "b", "c").output()).isEqualTo("1) \"1\"\n2) \"2\"\n3) (nil)");
        assertThat(cli(redisCli, "--no-raw", "GET", "missing").output()).isEqualTo("(nil)");
        assertThat(cli(redisCli, "DBSIZE").output()).isEqualTo("4");
        assertThat(cli(redisCli, "NOSUCHCOMMAND").output()).startsWith("ERR unknown command 'NOSUCHCOMMAND'");
    }

    @Test
    void redisBenchmarkCompletesSetAndGetWithoutErrors() throws Exception {
        Path redisBenchmark = ExternalTool.require("redis-benchmark", REDIS_TOOLS);
        assertBenchmarkSucceeds(benchmark(redisBenchmark, "-t", "set,get", "-n", "2000", "-q"));
    }

    @Test
    void redisBenchmarkCompletesWithPipelining() throws Exception {
        Path redisBenchmark = ExternalTool.require("redis-benchmark", REDIS_TOOLS);
        assertBenchmarkSucceeds(benchmark(redisBenchmark, "-t", "set,get", "-n", "20000", "-P", "16", "-c", "8", "-q"));
    }

    private static void assertBenchmarkSucceeds(Run run) {
        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.output())
                .containsPattern("SET: [0-9.]+ requests per second")
                .containsPattern("GET: [0-9.]+ requests per second")
                .doesNotContainIgnoringCase("error")
                .doesNotContainIgnoringCase("warning");
    }

    private Run cli(Path redisCli, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(redisCli.toString(), "-h", "127.0.0.1",
                "-p", Integer.toString(server.port())));
        command.addAll(List.of(args));
        Run run = run(command);
        assertThat(run.exitCode()).as(run.output()).isZero();
        return new Run(run.exitCode(), run.output().stripTrailing());
    }

    private Run benchmark(Path redisBenchmark, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(redisBenchmark.toString(), "-h", "127.0.0.1",
                "-p", Integer.toString(server.port())));
        command.addAll(List.of(args));
        return run(command);
    }

    private Run run(List<String> command) throws IOException, InterruptedException {
        Path output = Files.createTempFile(temp, "tool", ".out");
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(output.toFile()).redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                .start();
        if (!process.waitFor(TOOL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(command + " did not finish: " + Files.readString(output));
        }
        return new Run(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
    }
}
