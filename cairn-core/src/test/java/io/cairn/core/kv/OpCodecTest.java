package io.cairn.core.kv;

import io.cairn.core.ErrorCode;
import io.cairn.core.ErrorPayload;
import io.cairn.core.testing.SeededRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Operation and result lists survive encoding exactly; malformed input fails loudly. */
@ExtendWith(SeededRandom.class)
class OpCodecTest {
    static byte[] randomBytes(Random random, int maxLength) {
        byte[] b = new byte[random.nextInt(maxLength + 1)];
        random.nextBytes(b);
        return b;
    }

    static KvOp randomOp(Random random) {
        KvOp.Type type = KvOp.Type.values()[random.nextInt(KvOp.Type.values().length)];
        byte[] key = random.nextInt(10) == 0 ? new byte[0] : randomBytes(random, 40);
        byte[] value = switch (random.nextInt(4)) {
            case 0 -> null;
            case 1 -> new byte[0];
            default -> randomBytes(random, 300);
        };
        return new KvOp(type, random.nextInt(), key, value, random.nextLong(), random.nextInt());
    }

    static List<KvOp> randomOps(Random random) {
        List<KvOp> ops = new ArrayList<>();
        for (int i = random.nextInt(20); i > 0; i--) ops.add(randomOp(random));
        return ops;
    }

    static byte[] encodeOps(List<KvOp> ops) {
        int size = 4 + ops.stream().mapToInt(OpCodec::encodedSize).sum();
        ByteBuffer out = ByteBuffer.allocate(size);
        OpCodec.writeOps(out, ops);
        assertThat(out.remaining()).as("encodedSize is exact").isZero();
        return out.array();
    }

    private static OpResult randomResult(Random random) {
        return switch (random.nextInt(7)) {
            case 0 -> OpResult.NIL;
            case 1 -> OpResult.bulk(randomBytes(random, 200));
            case 2 -> OpResult.integer(random.nextLong());
            case 3 -> OpResult.OK;
            case 4 -> OpResult.error(ErrorCode.values()[random.nextInt(ErrorCode.values().length)], null);
            case 5 -> OpResult.error(ErrorCode.WRONG_BUCKET, "bucket " + random.nextInt() + " moved → rs2 ✓");
            default -> OpResult.error(ErrorCode.WRONG_BUCKET, "bucket " + random.nextInt() + " is not on this replicaset (moved to rs✓)",
                    new ErrorPayload("rs✓" + random.nextInt(100), random.nextLong()));
        };
    }

    @Test
    void opsRoundTrip(Random random) {
        for (int round = 0; round < 500; round++) {
            List<KvOp> ops = randomOps(random);
            ByteBuffer in = ByteBuffer.wrap(encodeOps(ops));
            assertThat(OpCodec.readOps(in)).as("round %d", round).isEqualTo(ops);
            assertThat(in.remaining()).as("round %d", round).isZero();
        }
    }

    @Test
    void nullValueAndEmptyValueStayDistinct() {
        byte[] key = new byte[0];
        List<KvOp> ops = List.of(new KvOp(KvOp.Type.SET, 1, key, new byte[0], 0, 0), KvOp.get(2, key));
        List<KvOp> decoded = OpCodec.readOps(ByteBuffer.wrap(encodeOps(ops)));
        assertThat(decoded.get(0).value()).isEmpty();
        assertThat(decoded.get(1).value()).isNull();
        assertThat(decoded.get(1).key()).isEmpty();
    }

    @Test
    void extremeNumbersRoundTrip() {
        KvOp op = new KvOp(KvOp.Type.INCRBY, Integer.MIN_VALUE, new byte[] {(byte) 0xFF}, null, Long.MIN_VALUE, -1);
        assertThat(OpCodec.readOps(ByteBuffer.wrap(encodeOps(List.of(op))))).containsExactly(op);
    }

    @Test
    void resultsRoundTrip(Random random) {
        for (int round = 0; round < 500; round++) {
            List<OpResult> results = new ArrayList<>();
            for (int i = random.nextInt(20); i > 0; i--) results.add(randomResult(random));
            ByteBuffer in = ByteBuffer.wrap(OpCodec.encodeResults(results));
            assertThat(OpCodec.decodeResults(in)).as("round %d", round).isEqualTo(results);
            assertThat(in.remaining()).as("round %d", round).isZero();
        }
    }

    @Test
    void nilAndEmptyBulkStayDistinct() {
        List<OpResult> decoded = OpCodec.decodeResults(ByteBuffer.wrap(
                OpCodec.encodeResults(List.of(OpResult.NIL, OpResult.bulk(new byte[0])))));
        assertThat(decoded.get(0)).isSameAs(OpResult.NIL);
        assertThat(decoded.get(1).bytes()).isNotNull().isEmpty();
    }

    @Test
    void unknownErrorCodeDecodesAsInternal() {
        byte[] encoded = OpCodec.encodeResults(List.of(OpResult.error(ErrorCode.SYNTAX, "bad")));
        ByteBuffer.wrap(encoded).putInt(5, 9999); // count(4) + kind(1), then the code
        OpResult decoded = OpCodec.decodeResults(ByteBuffer.wrap(encoded)).get(0);
        assertThat(decoded.error()).isEqualTo(ErrorCode.INTERNAL);
        assertThat(decoded.message()).isEqualTo("bad");
    }

    @Test
    void everyTruncationOfOpsFails(Random random) {
        List<KvOp> ops = List.of(randomOp(random), randomOp(random), randomOp(random));
        byte[] full = encodeOps(ops);
        for (int length = 0; length < full.length; length++) {
            ByteBuffer prefix = ByteBuffer.wrap(Arrays.copyOf(full, length));
            assertThatThrownBy(() -> OpCodec.readOps(prefix)).as("length %d", length)
                    .isInstanceOf(RuntimeException.class);
        }
    }

    @Test
    void everyTruncationOfResultsFailsButTheOneThatDropsThePayloadsWhole(Random random) {
        List<OpResult> results = new ArrayList<>();
        for (int i = 0; i < 6; i++) results.add(randomResult(random));
        results.add(OpResult.error(ErrorCode.WRONG_BUCKET, "moved", new ErrorPayload("rs2", 4)));
        byte[] full = OpCodec.encodeResults(results);
        List<OpResult> withoutPayloads = results.stream().map(OpCodecTest::withoutPayload).toList();
        int resultsEnd = OpCodec.encodeResults(withoutPayloads).length;
        for (int length = 0; length < full.length; length++) {
            ByteBuffer prefix = ByteBuffer.wrap(Arrays.copyOf(full, length));
            if (length == resultsEnd) {
                // the payloads are optional: what is left is a whole reply of the old form
                assertThat(OpCodec.decodeResults(prefix)).isEqualTo(withoutPayloads);
                continue;
            }
            assertThatThrownBy(() -> OpCodec.decodeResults(prefix)).as("length %d", length)
                    .isInstanceOf(RuntimeException.class);
        }
    }

    /** A result as a version without payloads knew it. */
    private static OpResult withoutPayload(OpResult r) {
        return r.isError() ? OpResult.error(r.error(), r.message()) : r;
    }

    @Test
    void aReplyWrittenBeforePayloadsExistedStillDecodes() {
        // An old storage node's (or stored, e.g. Ratis's retry cache) reply: [count][ERROR][code][message], nothing after.
        byte[] message = "bucket 7 is not on this replicaset (moved to rs2)".getBytes(StandardCharsets.UTF_8);
        ByteBuffer old = ByteBuffer.allocate(4 + 1 + 4 + 4 + message.length + 1);
        old.putInt(2).put(OpResult.Kind.ERROR.code()).putInt(ErrorCode.WRONG_BUCKET.code).putInt(message.length).put(message)
                .put(OpResult.Kind.OK.code());
        List<OpResult> decoded = OpCodec.decodeResults(ByteBuffer.wrap(old.array()));
        assertThat(decoded).containsExactly(OpResult.error(ErrorCode.WRONG_BUCKET, new String(message, StandardCharsets.UTF_8)), OpResult.OK);
        assertThat(decoded.get(0).payload()).isNull();
        assertThat(OpCodec.encodeResults(decoded)).as("without payloads, today's encoding is the old one").isEqualTo(old.array());
    }

    @Test
    void aPayloadTravelsWithItsErrorAndAnOlderReaderSeesTheSameResultsBeforeIt() {
        List<OpResult> results = List.of(OpResult.OK,
                OpResult.error(ErrorCode.WRONG_BUCKET, "bucket 7 is not on this replicaset (moved to rs2)", new ErrorPayload("rs2", 9)),
                OpResult.integer(3));
        byte[] encoded = OpCodec.encodeResults(results);
        List<OpResult> decoded = OpCodec.decodeResults(ByteBuffer.wrap(encoded));
        assertThat(decoded).isEqualTo(results);
        assertThat(decoded.get(1).payload()).isEqualTo(new ErrorPayload("rs2", 9));
        assertThat(decoded.get(1).message()).isEqualTo("bucket 7 is not on this replicaset (moved to rs2)");
        // An older router decodes the results of a whole body and stops: the bytes it reads are the old encoding.
        byte[] old = OpCodec.encodeResults(results.stream().map(OpCodecTest::withoutPayload).toList());
        assertThat(Arrays.copyOf(encoded, old.length)).isEqualTo(old);
    }

    @Test
    void payloadFieldsALaterVersionAddsAreSkipped() {
        byte[] results = OpCodec.encodeResults(List.of(OpResult.error(ErrorCode.WRONG_BUCKET, "moved")));
        byte[] rs = "rs3".getBytes(StandardCharsets.UTF_8);
        int fields = 4 + rs.length + 8 + 5; // five bytes of a field this version does not know
        ByteBuffer b = ByteBuffer.allocate(results.length + 4 + 4 + 4 + fields);
        b.put(results).putInt(1).putInt(0).putInt(fields).putInt(rs.length).put(rs).putLong(12).put(new byte[5]);
        OpResult decoded = OpCodec.decodeResults(ByteBuffer.wrap(b.array())).get(0);
        assertThat(decoded.payload()).isEqualTo(new ErrorPayload("rs3", 12));
    }

    @Test
    void aPayloadForAResultThatIsNoErrorIsRejected() {
        byte[] results = OpCodec.encodeResults(List.of(OpResult.OK));
        ByteBuffer b = ByteBuffer.allocate(results.length + 4 + 4 + OpCodec.sizedPayloadBytes(new ErrorPayload("rs2", 1)));
        b.put(results).putInt(1).putInt(0);
        OpCodec.writeSizedPayload(b, new ErrorPayload("rs2", 1));
        assertThatThrownBy(() -> OpCodec.decodeResults(ByteBuffer.wrap(b.array()))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void negativeOrHugeCountIsRejected() {
        for (int count : new int[] {-1, Integer.MIN_VALUE, Integer.MAX_VALUE, 1_000_000}) {
            byte[] bytes = ByteBuffer.allocate(64).putInt(count).array();
            assertThatThrownBy(() -> OpCodec.readOps(ByteBuffer.wrap(bytes))).as("count %d", count)
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> OpCodec.decodeResults(ByteBuffer.wrap(bytes))).as("count %d", count)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void lengthBeyondTheMessageIsRejected() {
        byte[] encoded = encodeOps(List.of(KvOp.get(1, new byte[] {1, 2, 3})));
        ByteBuffer.wrap(encoded).putInt(4 + 1 + 4, Integer.MAX_VALUE); // key length of the first op
        assertThatThrownBy(() -> OpCodec.readOps(ByteBuffer.wrap(encoded))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void unknownOpTypeOrResultKindIsRejected() {
        byte[] ops = encodeOps(List.of(KvOp.get(1, new byte[] {1})));
        ops[4] = (byte) 0x7F;
        assertThatThrownBy(() -> OpCodec.readOps(ByteBuffer.wrap(ops))).isInstanceOf(RuntimeException.class);
        ops[4] = (byte) -1;
        assertThatThrownBy(() -> OpCodec.readOps(ByteBuffer.wrap(ops))).isInstanceOf(RuntimeException.class);

        byte[] results = OpCodec.encodeResults(List.of(OpResult.OK));
        results[4] = 9;
        assertThatThrownBy(() -> OpCodec.decodeResults(ByteBuffer.wrap(results))).isInstanceOf(RuntimeException.class);
    }
}
