package io.cairn.core.wire;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MemberChangeTest {
    @Test
    void changesAndViewsSurviveTheWire() {
        for (MemberChange c : new MemberChange[] {MemberChange.get(), MemberChange.snapshot(), MemberChange.lead("s1-3"),
                new MemberChange(MemberChange.Op.ADD_LEARNER, "s1-4", "10.0.0.4:7610", 2084),
                new MemberChange(MemberChange.Op.REMOVE, "s1-2", "", 2912)}) {
            assertThat(MemberChange.decode(c.encode())).isEqualTo(c);
        }
        MemberChange.View v = new MemberChange.View(2084, true, Map.of("s1-1", "h1:1", "s1-2", "h2:2"), Map.of("s1-4", "h4:4"));
        MemberChange.View back = MemberChange.decodeView(ByteBuffer.wrap(MemberChange.encode(v)));
        assertThat(back).isEqualTo(v);
        assertThat(back.has("s1-4")).isTrue();
        assertThat(back.toString()).isEqualTo("voters [s1-1, s1-2], learners [s1-4] (index 2084)");
    }

    @Test
    void aMalformedRequestIsRefusedWithAClearError() {
        byte[] add = new MemberChange(MemberChange.Op.ADD_LEARNER, "s1-4", "h:1", 7).encode();
        assertThatThrownBy(() -> MemberChange.decode(Arrays.copyOf(add, add.length - 3))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("past the end");
        assertThatThrownBy(() -> MemberChange.decode(new byte[] {9, 0, 0})).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown membership op 9");
        assertThatThrownBy(() -> MemberChange.decode(new byte[] {1})).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("truncated");
        assertThatThrownBy(() -> new MemberChange(MemberChange.Op.REMOVE, "", "", 1)).hasMessageContaining("names no member");
    }
}
