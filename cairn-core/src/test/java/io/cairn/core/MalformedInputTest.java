package io.cairn.core;

import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpCodec;
import io.cairn.core.topology.BootstrapPlanner;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.wire.DiscoveryPage;
import io.cairn.core.wire.StorageStats;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Decoders and planners refuse malformed input instead of returning wrong data. */
class MalformedInputTest {
    @Test
    void opCodecRejectsALengthBelowMinusOne() {
        ByteBuffer out = ByteBuffer.allocate(4 + OpCodec.encodedSize(KvOp.get(1, new byte[0])));
        OpCodec.writeOps(out, List.of(KvOp.get(1, new byte[0])));
        byte[] encoded = out.array();
        ByteBuffer.wrap(encoded).putInt(4 + 1 + 4 + 4, -2); // the value length of the first op
        assertThatThrownBy(() -> OpCodec.readOps(ByteBuffer.wrap(encoded))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void opCodecRejectsANullKey() {
        ByteBuffer out = ByteBuffer.allocate(4 + OpCodec.encodedSize(KvOp.get(1, new byte[0])));
        OpCodec.writeOps(out, List.of(KvOp.get(1, new byte[0])));
        byte[] encoded = out.array();
        ByteBuffer.wrap(encoded).putInt(4 + 1 + 4, -1); // the key length of the first op
        assertThatThrownBy(() -> OpCodec.readOps(ByteBuffer.wrap(encoded))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void discoveryPageRejectsAHugeRecordCount() {
        byte[] bytes = new DiscoveryPage(new io.cairn.core.wire.DiscoveryCursor(1, 2, 9), 2, 3, false, false, List.of()).encode();
        ByteBuffer.wrap(bytes).putInt(DiscoveryPage.HEADER_BYTES, Integer.MAX_VALUE);
        assertThatThrownBy(() -> DiscoveryPage.decode(ByteBuffer.wrap(bytes))).isInstanceOf(RuntimeException.class);
    }

    @Test
    void discoveryPageRejectsABooleanByteOtherThanZeroOrOne() {
        byte[] bytes = new DiscoveryPage(new io.cairn.core.wire.DiscoveryCursor(1, 2, 9), 2, 3, true, false, List.of()).encode();
        bytes[DiscoveryPage.HEADER_BYTES - 2] = 2;
        assertThatThrownBy(() -> DiscoveryPage.decode(ByteBuffer.wrap(bytes))).isInstanceOf(RuntimeException.class);
    }

    @Test
    void storageStatsRejectsABooleanByteOtherThanZeroOrOne() {
        byte[] bytes = new StorageStats(1, 2, 3, 4, 5, true, 2).encode();
        bytes[8 + 4 + 8 + 8 + 8] = 7;
        assertThatThrownBy(() -> StorageStats.decode(ByteBuffer.wrap(bytes))).isInstanceOf(RuntimeException.class);
    }

    @Test
    void bootstrapPlannerRejectsANegativeWeight() {
        List<ReplicasetSpec> specs = List.of(new ReplicasetSpec("rs1", 2, List.of()), new ReplicasetSpec("rs2", -1, List.of()));
        assertThatThrownBy(() -> BootstrapPlanner.plan(10, specs)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void bootstrapPlannerRejectsANonPositiveBucketCount() {
        assertThatThrownBy(() -> BootstrapPlanner.plan(0, List.of(new ReplicasetSpec("rs1", 1, List.of()))))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
