package io.cairn.core.move;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The replicated archive pointer: a round trip, and bad input refused with a clear error rather than a wrong pointer. */
class ArchivePointerTest {
    private final ArchivePointer p = new ArchivePointer("cairn/rs1/buckets/7/3-abcdef", 3, 101, 7_000, 7_433, "abcdef");

    @Test
    void aPointerSurvivesItsEncoding() {
        assertThat(ArchivePointer.decode(p.encode())).isEqualTo(p);
    }

    @Test
    void aTruncatedOrCorruptEncodingIsRefused() {
        byte[] bytes = p.encode();
        assertThatThrownBy(() -> ArchivePointer.decode(Arrays.copyOf(bytes, bytes.length - 3))).isInstanceOfAny(
                IllegalArgumentException.class, java.nio.BufferUnderflowException.class);
        byte[] badLength = bytes.clone();
        ByteBuffer.wrap(badLength).putInt(0, 1 << 30);
        assertThatThrownBy(() -> ArchivePointer.decode(badLength)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bad string length");
    }

    @Test
    void aPointerNeedsAKeyAHashAndNonNegativeCounts() {
        assertThatThrownBy(() -> new ArchivePointer("", 1, 0, 0, 0, "h")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ArchivePointer("k", 1, 0, 0, 0, "")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ArchivePointer("k", 1, -1, 0, 0, "h")).isInstanceOf(IllegalArgumentException.class);
    }
}
