package io.cairn.core.kv;

import io.cairn.core.move.ChunkEntry;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** A destination's piece-by-piece check gives the CRC the whole key's move form has, without reading it again. */
class MovePieceCheckTest {
    private static final byte[] KEY = "big-hash".getBytes(StandardCharsets.UTF_8);

    @Test
    void piecesCheckedOneByOneGiveTheWholeKeysCrc() {
        long seed = System.nanoTime();
        System.out.println("MovePieceCheckTest seed " + seed);
        SplittableRandom random = new SplittableRandom(seed);
        for (int round = 0; round < 50; round++) {
            List<KvView.Field> fields = fields(random, random.nextInt(2, 400));
            byte[] meta = HashMeta.encode(fields.size(), 0);
            MovePiece.Check check = null;
            for (List<KvView.Field> piece : split(random, fields)) {
                byte[] form = CollectionMeta.packForMove(meta, piece);
                check = check == null ? MovePiece.Check.first(KEY, form) : check.then(form);
            }
            long whole = new ChunkEntry(KEY, CollectionMeta.packForMove(meta, fields)).crc();
            assertThat(check.wholeCrc()).as("seed %d round %d", seed, round).isEqualTo(whole);
            assertThat(MovePiece.Check.decode(ByteBuffer.wrap(check.encode())).wholeCrc()).isEqualTo(whole);
        }
    }

    /** Pieces read at different times of a copy ahead: the metadata counts other elements than arrived. */
    @Test
    void anElementCountOtherThanTheMetadatasIsCheckedAsARecountWould() {
        SplittableRandom random = new SplittableRandom(3);
        List<KvView.Field> fields = fields(random, 30);
        byte[] staleMeta = HashMeta.encode(25, 0);
        MovePiece.Check check = MovePiece.Check.first(KEY, CollectionMeta.packForMove(staleMeta, fields.subList(0, 10)))
                .then(CollectionMeta.packForMove(staleMeta, fields.subList(10, 30)));
        long recounted = MovePiece.wholeCrc(KEY, staleMeta, (from, limit) -> fields.stream()
                .filter(f -> Arrays.compare(f.name(), from) >= 0).limit(limit).toList());
        assertThat(check.wholeCrc()).isEqualTo(recounted);
    }

    private static List<KvView.Field> fields(SplittableRandom random, int n) {
        List<KvView.Field> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] value = new byte[random.nextInt(0, 50)];
            random.nextBytes(value);
            out.add(new KvView.Field(String.format("f%06d", i).getBytes(StandardCharsets.UTF_8), value));
        }
        return out;
    }

    private static List<List<KvView.Field>> split(SplittableRandom random, List<KvView.Field> fields) {
        List<List<KvView.Field>> pieces = new ArrayList<>();
        int at = 0;
        while (at < fields.size()) {
            int n = Math.min(fields.size() - at, random.nextInt(1, 60));
            pieces.add(fields.subList(at, at + n));
            at += n;
        }
        return pieces;
    }
}
