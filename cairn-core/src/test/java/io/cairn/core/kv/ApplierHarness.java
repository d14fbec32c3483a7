package io.cairn.core.kv;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * What the collection applier tests share: one {@link KvApplier} over an in-memory view, operations of
 * bucket {@link #BUCKET} at {@link #NOW} with their arguments packed (a Long as 8 bytes, a String as UTF-8).
 */
abstract class ApplierHarness {
    static final int BUCKET = 7;
    static final long NOW = 1_000;
    final KvApplier applier = new KvApplier(1 << 20);
    final InMemoryKvView view = new InMemoryKvView();

    OpResult runArg(KvOp.Type type, String key, long arg, int flags, Object... args) {
        List<byte[]> packed = new ArrayList<>();
        for (Object a : args) packed.add(a instanceof Long n ? ByteBuffer.allocate(8).putLong(n).array() : b((String) a));
        return applier.apply(new KvOp(type, BUCKET, b(key), Packed.encode(packed), arg, flags), view, NOW);
    }

    OpResult run(KvOp.Type type, String key, Object... args) {
        return runArg(type, key, 0, 0, args);
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static List<String> strings(OpResult r) {
        return r.elements().stream().map(e -> e == null ? null : new String(e, StandardCharsets.UTF_8)).toList();
    }
}
