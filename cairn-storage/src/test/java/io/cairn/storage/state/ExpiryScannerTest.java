package io.cairn.storage.state;

import io.cairn.core.kv.KvOp;
import io.cairn.core.wire.StorageRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The expiry sweep walks the data in bounded steps across buckets and wraps around. */
class ExpiryScannerTest {
    private static final long NOW_MS = 100_000;

    @TempDir
    Path dir;

    private ReplicaUnderTest replica;

    @BeforeEach
    void open() throws IOException {
        replica = ReplicaUnderTest.bootstrapped(dir.resolve("db"), 10);
    }

    @AfterEach
    void close() {
        replica.close();
    }

    @Test
    void smallStepsFindEveryExpiredKeyAcrossBucketsAndWrapAround() {
        List<KvOp> writes = new ArrayList<>();
        for (int bucket : new int[] {1, 2, 5, 10}) {
            for (int i = 0; i < 7; i++) {
                writes.add(set(bucket, "gone" + i, 1_000)); // expires at 2,500, long before NOW_MS
                writes.add(set(bucket, "kept" + i, 0));
            }
        }
        replica.apply(StorageRequest.write(writes), 1_500);

        List<String> expected = new ArrayList<>();
        for (KvOp w : writes) if (w.arg() > 0) expected.add(name(w));
        ExpiryScanner scanner = new ExpiryScanner();
        // A pass examines 66 (10 buckets visited, 56 keys): 20 steps of 4 are one pass, not two.
        List<String> found = new ArrayList<>();
        for (int step = 0; step < 20; step++) {
            List<KvOp> deletes = scanner.next(replica.store, 4, NOW_MS);
            assertThat(deletes).allMatch(op -> op.type() == KvOp.Type.DEL_IF_EXPIRED);
            deletes.forEach(op -> found.add(name(op)));
        }
        assertThat(found).containsAll(expected).allMatch(expected::contains);

        // It wrapped around: the next steps find them again.
        List<String> again = new ArrayList<>();
        for (int step = 0; step < 20; step++) scanner.next(replica.store, 4, NOW_MS).forEach(op -> again.add(name(op)));
        assertThat(again).containsAll(expected);
    }

    @Test
    void nothingIsExpiredBeforeItsTime() {
        replica.apply(StorageRequest.write(List.of(set(3, "k", 1_000), set(4, "k", 0))), 1_500);
        assertThat(new ExpiryScanner().next(replica.store, 1_000, 2_000)).isEmpty();
        assertThat(new ExpiryScanner().next(replica.store, 1_000, 3_000)).extracting(KvOp::bucket).containsExactly(3);
    }

    private static String name(KvOp op) {
        return op.bucket() + "/" + new String(op.key(), StandardCharsets.UTF_8);
    }

    private static KvOp set(int bucket, String key, long ttlMs) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        return ttlMs == 0 ? KvOp.set(bucket, k, new byte[] {'v'})
                : new KvOp(KvOp.Type.SET, bucket, k, new byte[] {'v'}, ttlMs, KvOp.FLAG_EXPIRE_REL);
    }
}
