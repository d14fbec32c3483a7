package io.cairn.core.kv;

import io.cairn.core.ErrorCode;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.zip.CRC32C;

import static org.assertj.core.api.Assertions.assertThat;

/** DUMP/RESTORE's store side: what a RESTORE leaves behind, and payloads that pass the checksum but lie. */
class DumpApplierTest extends ApplierHarness {

    private OpResult restore(String key, String ttl, byte[] payload, int flags) {
        return applier.apply(new KvOp(KvOp.Type.RESTORE, BUCKET, b(key), Packed.encode(List.of(b(ttl), payload)), 0, flags), view, NOW);
    }

    @Test
    void aReplacingRestoreLeavesNoEntryOfTheOldCollection() {
        run(KvOp.Type.HSET, "target", "f1", "v", "f2", "v", "f3", "v");
        run(KvOp.Type.SADD, "set", "a", "b");
        byte[] payload = applier.apply(KvOp.of(KvOp.Type.DUMP, BUCKET, b("set")), view, NOW).bytes();
        assertThat(restore("target", "0", payload, KvOp.FLAG_XX)).isEqualTo(OpResult.OK);
        assertThat(view.storedFields(BUCKET, b("target"))).isEqualTo(2);
        assertThat(strings(run(KvOp.Type.SMEMBERS, "target"))).containsExactly("a", "b");
    }

    @Test
    void aPayloadWithAGoodChecksumButAWrongCountIsBadDataAndWritesNothing() {
        run(KvOp.Type.SADD, "set", "a", "b");
        byte[] payload = applier.apply(KvOp.of(KvOp.Type.DUMP, BUCKET, b("set")), view, NOW).bytes();
        // The count sits right after the 8-byte header, which follows "CAIRN" and the version byte.
        ByteBuffer.wrap(payload).putLong(6 + StoredValue.HEADER_BYTES, 3);
        CRC32C crc = new CRC32C();
        crc.update(payload, 0, payload.length - 4);
        ByteBuffer.wrap(payload).putInt(payload.length - 4, (int) crc.getValue());
        OpResult refused = restore("copy", "0", payload, 0);
        assertThat(refused.error()).isEqualTo(ErrorCode.PROTOCOL);
        assertThat(refused.message()).isEqualTo("Bad data format");
        assertThat(view.storedFields(BUCKET, b("copy"))).isZero();
        assertThat(run(KvOp.Type.EXISTS, "copy").number()).isZero();
    }
}
