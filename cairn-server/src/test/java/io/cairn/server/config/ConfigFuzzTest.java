package io.cairn.server.config;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.testing.Fuzz;
import io.cairn.core.testing.SeededRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Mutated config files ({@link Fuzz}): each loads, or is refused with INVALID_CONFIG naming the file
 * (the operator's clear error), never with another exception, and within bounded memory and time
 * (YAML aliases cannot blow a small file up).
 */
@ExtendWith(SeededRandom.class)
class ConfigFuzzTest {
    @TempDir
    Path dir;

    @Test
    void anyFileLoadsOrIsRefusedAsAnInvalidConfig(Random random) throws Exception {
        String minimal = ConfigLoaderTest.minimalYaml();
        List<byte[]> corpus = List.of(minimal.getBytes(StandardCharsets.UTF_8), (minimal + """
                bucketCount: 3000
                storage: {maxValueBytes: 1048576, electionTimeoutMs: 1000, engine: microraft}
                router: {requestTimeoutMs: 5000, maxBatchOps: 64, followerReads: true}
                rebalancer: {chunkKeys: 100, maxBytesPerSecond: 0}
                base: &b {id: x}
                other: *b
                """).getBytes(StandardCharsets.UTF_8));
        Path file = dir.resolve("cluster.yaml");
        int[] loaded = {0};
        // A file written and parsed per input: a tenth of the other targets' inputs.
        int refused = Fuzz.run(random, corpus, Fuzz.inputs() / 10, 32L << 20, input -> {
            Files.write(file, input);
            try {
                ConfigLoader.load(file);
                loaded[0]++;
            } catch (CairnException e) {
                if (e.code() != ErrorCode.INVALID_CONFIG || !e.getMessage().contains(file.toString())) throw new AssertionError("refused unclearly", e);
                throw e;
            }
        }, CairnException.class);
        System.out.printf("config files: %d loaded, %d refused%n", loaded[0], refused);
        assertThat(loaded[0]).isPositive();
    }
}
