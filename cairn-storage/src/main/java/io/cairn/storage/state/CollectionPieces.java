package io.cairn.storage.state;

import io.cairn.core.kv.CollectionMeta;
import io.cairn.core.kv.KvView;
import io.cairn.core.kv.MovePiece;
import io.cairn.core.move.ChunkEntry;
import io.cairn.storage.rocks.RocksStore;
import org.rocksdb.ReadOptions;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The source's side of {@link MovePiece}: a collection's next part for a move chunk, read a page of
 * elements at a time so a collection bigger than the chunk bound is never held whole in memory.
 */
final class CollectionPieces {
    private static final int READ_PAGE = 256;

    /** Per element in a move form: the two length prefixes of name and value. */
    private static final int ELEMENT_OVERHEAD_BYTES = 8;

    private CollectionPieces() {}

    /**
     * The entry for collection {@code key} (record {@code stored}) in a page with {@code budgetBytes}
     * left: the whole move form when it fits and {@code afterElement} is empty; else the next piece,
     * at least one element, starting after {@code afterElement}.
     */
    static ChunkEntry next(RocksStore store, int bucket, byte[] key, byte[] stored, byte[] afterElement, int budgetBytes) {
        boolean fromStart = afterElement.length == 0;
        byte[] from = fromStart ? new byte[0] : Arrays.copyOf(afterElement, afterElement.length + 1);
        List<KvView.Field> taken = new ArrayList<>();
        long bytes = key.length + CollectionMeta.metaBytes(stored[0]) + 4 + 8;
        boolean end = false;
        try (ReadOptions latest = new ReadOptions()) {
            read:
            while (true) {
                List<KvView.Field> page = store.fieldsFrom(bucket, key, from, READ_PAGE, latest);
                for (KvView.Field f : page) {
                    long size = ELEMENT_OVERHEAD_BYTES + f.name().length + f.value().length;
                    if (!taken.isEmpty() && bytes + size > budgetBytes) break read;
                    taken.add(f);
                    bytes += size;
                }
                if (page.size() < READ_PAGE) {
                    end = true;
                    break;
                }
                byte[] last = page.get(page.size() - 1).name();
                from = Arrays.copyOf(last, last.length + 1);
            }
        }
        if (fromStart && end) return new ChunkEntry(key, CollectionMeta.packForMove(stored, taken));
        MovePiece.Kind kind = fromStart ? MovePiece.Kind.FIRST : end ? MovePiece.Kind.LAST : MovePiece.Kind.MIDDLE;
        // no CRC of the whole key: reading it again here held the replicaset's Raft thread (about 0.6 s per
        // million elements); the driver and the destination each sum the pieces they see (MovePiece.Check)
        return new ChunkEntry(key, MovePiece.encode(kind, 0, stored, taken));
    }

    /** What {@link ChunkEntry#crc()} of the key's whole move form is, computed a page at a time. */
    static long wholeCrc(RocksStore store, int bucket, byte[] key, byte[] stored) {
        try (ReadOptions latest = new ReadOptions()) {
            return MovePiece.wholeCrc(key, stored, (from, limit) -> store.fieldsFrom(bucket, key, from, limit, latest));
        }
    }
}
