package io.cairn.server;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** Where free port ranges are looked for. */
class PortsTest {
    /** Files.readString read one byte of the kernel's file ("3"), which kept every range in the 1,000 ports above 10,000. */
    @Test
    void theFirstEphemeralPortIsReadInFull() throws IOException {
        Path file = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        int expected = 32_768;
        if (Files.isReadable(file)) {
            try (InputStream in = Files.newInputStream(file)) {
                expected = Integer.parseInt(new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim().split("\\s+")[0]);
            }
        }
        assertThat(Ports.ephemeralLow()).isEqualTo(expected);
    }
}
