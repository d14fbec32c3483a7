package io.cairn.storage.state;

import io.cairn.core.kv.KvOp;
import io.cairn.core.wire.StorageRequest;
import io.cairn.core.wire.StorageStats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The expiry sweeper's count of keys with a TTL (INFO keyspace's expires and avg_ttl) on RocksDB. */
class ExpiryTallyTest {
    private static final long NOW = 1_000_000;

    @TempDir
    Path dir;

    @Test
    void aFullPassCountsTheLiveKeysWithATtlAndTheirAverageAndReachesTheStats() throws Exception {
        try (ReplicaUnderTest r = ReplicaUnderTest.bootstrapped(dir.resolve("db"), 10)) {
            for (int i = 0; i < 10; i++) {
                long ttlMs = i < 4 ? 10_000 * (i + 1) : 0; // 4 keys with 10, 20, 30, 40 s
                r.result(StorageRequest.write(List.of(new KvOp(KvOp.Type.SET, 1 + i % 3, b("k" + i), b("v"), ttlMs,
                        ttlMs > 0 ? KvOp.FLAG_EXPIRE_REL : 0))), NOW);
            }
            r.result(StorageRequest.write(List.of(new KvOp(KvOp.Type.SET, 2, b("gone"), b("v"), 5, KvOp.FLAG_EXPIRE_REL))), NOW);
            ExpiryScanner scanner = new ExpiryScanner();
            // Three keys per step: the first pass ends on the fourth step, and only then is it published.
            List<KvOp> expired = new java.util.ArrayList<>();
            for (int step = 0; step < 4; step++) expired.addAll(scanner.next(r.store, 3, NOW + 10));
            assertThat(expired).extracting(op -> new String(op.key(), StandardCharsets.UTF_8)).containsExactly("gone");
            ExpiryScanner.Tally tally = scanner.tally();
            assertThat(tally.expiringKeys()).isEqualTo(4);
            assertThat(tally.avgTtlMs()).isEqualTo(25_000 - 10);
            r.state.expiryTally(tally);
            StorageStats stats = StorageStats.decode(ByteBuffer.wrap(r.state.query(ByteBuffer.wrap(StorageRequest.stats()), NOW)));
            assertThat(stats.expiringKeys()).isEqualTo(4);
            assertThat(stats.avgTtlMs()).isEqualTo(25_000 - 10);
            // A partial second pass does not replace the published one.
            scanner.next(r.store, 3, NOW + 20);
            assertThat(scanner.tally()).isEqualTo(tally);
        }
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
