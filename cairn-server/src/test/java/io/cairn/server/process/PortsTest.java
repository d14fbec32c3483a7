package io.cairn.server.process;

import io.cairn.server.process.Ports.Bases;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Where free port ranges are looked for, and the slices that keep parallel test JVMs apart. */
class PortsTest {
    private static final int COUNT = 40;
    private static final int EPHEMERAL_LOW = 32_768;

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

    @Test
    void withoutASliceRangesStartAt10000AndEndBelowTheEphemeralPorts() {
        Bases all = Ports.bases(COUNT, EPHEMERAL_LOW, null);
        assertThat(all.lowest()).isEqualTo(10_000);
        assertThat(lastPortOfHighestRange(all)).isLessThan(EPHEMERAL_LOW);
    }

    @Test
    void twoSlicesDoNotOverlapAndBothEndBelowTheEphemeralPorts() {
        Bases first = Ports.bases(COUNT, EPHEMERAL_LOW, "1/2");
        Bases second = Ports.bases(COUNT, EPHEMERAL_LOW, "2/2");
        assertThat(first.lowest()).isEqualTo(10_000);
        assertThat(lastPortOfHighestRange(first)).isLessThan(second.lowest());
        assertThat(lastPortOfHighestRange(second)).isLessThan(EPHEMERAL_LOW);
        assertThat(second.bound()).as("room for ranges in the second slice").isGreaterThan(second.lowest() + 1_000);
    }

    @Test
    void aSliceOutsideOneToNIsRefused() {
        assertThatThrownBy(() -> Ports.bases(COUNT, EPHEMERAL_LOW, "3/2")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(Ports.SLICE_PROPERTY);
        assertThatThrownBy(() -> Ports.bases(COUNT, EPHEMERAL_LOW, "0/2")).isInstanceOf(IllegalArgumentException.class);
    }

    private static int lastPortOfHighestRange(Bases bases) {
        return bases.bound() - 1 + COUNT - 1;
    }
}
