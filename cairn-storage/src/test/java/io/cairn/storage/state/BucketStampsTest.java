package io.cairn.storage.state;

import io.cairn.core.kv.KvOp;
import io.cairn.core.wire.StorageRequest;
import io.cairn.storage.rocks.RocksStore;
import io.cairn.storage.rocks.StoreIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.WriteBatch;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each bucket's last-write stamp (WATCH's version, the doubled-bucket date) is held in memory and
 * persisted as one record per entry, folded into a base now and then: what a member reads back after
 * a restart must be what it had, whichever records were folded.
 */
class BucketStampsTest {
    private static final int BUCKETS = 300;

    @TempDir
    Path dir;

    @Test
    void stampsMatchAModelAcrossFoldsAndRestarts() throws Exception {
        long seed = System.nanoTime();
        System.out.println("BucketStampsTest seed " + seed);
        Random random = new Random(seed);
        Path db = dir.resolve("db");
        Map<Integer, long[]> model = new HashMap<>(); // bucket -> {stampMs, index}
        try (ReplicaUnderTest replica = ReplicaUnderTest.bootstrapped(db, BUCKETS)) {
            int entries = 2 * BucketStamps.MIN_RECORDS_BEFORE_FOLD + random.nextInt(1_000);
            for (int i = 0; i < entries; i++) {
                List<KvOp> ops = new ArrayList<>();
                for (int n = 1 + random.nextInt(4); n > 0; n--) {
                    ops.add(new KvOp(KvOp.Type.SET, 1 + random.nextInt(BUCKETS), key(i), "v".getBytes(StandardCharsets.UTF_8), 0, 0));
                }
                long stampMs = 2_000 + i;
                replica.apply(StorageRequest.write(ops), stampMs);
                for (KvOp op : ops) model.put(op.bucket(), new long[] {stampMs, replica.state.appliedIndex()});
                if (random.nextInt(1_500) == 0) replica.open(db);
            }
            assertMatches(replica.state, model, "before a restart (seed " + seed + ")");
            replica.open(db);
            assertMatches(replica.state, model, "after a restart (seed " + seed + ")");
            assertThat(count(replica.store, "stamp-log/")).as("records are folded, not kept forever")
                    .isLessThanOrEqualTo(BucketStamps.MIN_RECORDS_BEFORE_FOLD);
            assertThat(count(replica.store, "stamp-base")).isEqualTo(1);
        }
    }

    @Test
    void aWriteThatFailsItsGuardOrAReadDoesNotStamp() throws Exception {
        try (ReplicaUnderTest replica = ReplicaUnderTest.bootstrapped(dir.resolve("db"), 10)) {
            replica.apply(StorageRequest.write(List.of(new KvOp(KvOp.Type.SET, 3, key(1), "v".getBytes(StandardCharsets.UTF_8), 0, 0))), 5_000);
            long version = replica.state.bucketVersion(3);
            replica.apply(StorageRequest.write(List.of(new KvOp(KvOp.Type.GET, 3, key(1), null, 0, 0))), 6_000);
            assertThat(replica.state.bucketVersion(3)).isEqualTo(version);
            assertThat(replica.state.lastWriteMs(3)).isEqualTo(5_000);
            assertThat(replica.state.lastWriteMs(4)).isEqualTo(-1);
        }
    }

    @Test
    void stampsWrittenOneKeyPerBucketBeforeAreReadAndFoldedIn() throws Exception {
        Path db = dir.resolve("db");
        try (ReplicaUnderTest replica = ReplicaUnderTest.bootstrapped(db, BUCKETS)) {
            // a store written by an earlier version: last-write/[bucket] -> [stampMs][index]
            try (WriteBatch batch = new WriteBatch()) {
                for (int bucket = 1; bucket <= 5; bucket++) {
                    byte[] legacyKey = ByteBuffer.allocate(11 + 4).put("last-write/".getBytes(StandardCharsets.US_ASCII)).putInt(bucket).array();
                    batch.put(replica.store.system, legacyKey, ByteBuffer.allocate(16).putLong(900 + bucket).putLong(bucket).array());
                }
                replica.store.write(batch);
            }
            replica.open(db);
            assertThat(replica.state.lastWriteMs(2)).isEqualTo(902);
            long legacyVersion = replica.state.bucketVersion(2);
            for (int i = 0; i <= BucketStamps.MIN_RECORDS_BEFORE_FOLD; i++) {
                replica.apply(StorageRequest.write(List.of(new KvOp(KvOp.Type.SET, 100, key(i), "v".getBytes(StandardCharsets.UTF_8), 0, 0))), 10_000 + i);
            }
            assertThat(count(replica.store, "last-write/")).as("folded into the base, then deleted").isZero();
            replica.open(db);
            assertThat(replica.state.lastWriteMs(2)).isEqualTo(902);
            assertThat(replica.state.bucketVersion(2)).isEqualTo(legacyVersion);
            assertThat(replica.state.lastWriteMs(100)).isEqualTo(10_000 + BucketStamps.MIN_RECORDS_BEFORE_FOLD);
        }
    }

    private static void assertMatches(ReplicasetState state, Map<Integer, long[]> model, String when) {
        long unwritten = state.bucketVersion(BUCKETS + 1);
        for (int bucket = 1; bucket <= BUCKETS; bucket++) {
            long[] expected = model.get(bucket);
            assertThat(state.lastWriteMs(bucket)).as("bucket %d's stamp %s", bucket, when).isEqualTo(expected == null ? -1 : expected[0]);
            // the version mixes the replicaset's incarnation with the index of the entry that last wrote
            assertThat(state.bucketVersion(bucket) ^ unwritten).as("bucket %d's version %s", bucket, when).isEqualTo(expected == null ? 0 : expected[1]);
        }
    }

    private static byte[] key(int i) {
        return ("k" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static int count(RocksStore store, String prefix) {
        byte[] p = prefix.getBytes(StandardCharsets.US_ASCII);
        int n = 0;
        try (StoreIterator it = store.newIterator(store.system)) {
            for (it.seek(p); it.isValid() && new String(it.key(), StandardCharsets.ISO_8859_1).startsWith(prefix); it.next()) n++;
        }
        return n;
    }
}
