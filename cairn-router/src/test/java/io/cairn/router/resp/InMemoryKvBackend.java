package io.cairn.router.resp;

import io.cairn.core.kv.KvApplier;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.KvView;
import io.cairn.core.kv.OpResult;
import io.cairn.core.kv.StoredValue;
import io.cairn.core.wire.KeyPage;
import io.cairn.router.KvBackend;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A single-process {@link KvBackend} with the store's real semantics ({@link KvApplier} over a
 * map), for testing the protocol layer. Each call is applied under one lock, so a call is
 * atomic (stronger than the per-bucket guarantee of the real backend); the clock is real.
 */
final class InMemoryKvBackend implements KvBackend {
    private record BucketKey(int bucket, ByteBuffer key) {}

    private final Map<BucketKey, byte[]> entries = new ConcurrentHashMap<>();
    private final KvView view = new KvView() {
        @Override
        public byte[] get(int bucket, byte[] key) {
            return entries.get(new BucketKey(bucket, ByteBuffer.wrap(key)));
        }

        @Override
        public void put(int bucket, byte[] key, byte[] stored) {
            entries.put(new BucketKey(bucket, ByteBuffer.wrap(key.clone())), stored);
        }

        @Override
        public void delete(int bucket, byte[] key) {
            entries.remove(new BucketKey(bucket, ByteBuffer.wrap(key)));
        }

        // Collections' element entries, so the protocol tests cover hashes, lists, sets and sorted sets too.
        @Override
        public byte[] getField(int bucket, byte[] key, byte[] field) {
            java.util.NavigableMap<byte[], byte[]> f = fields.get(new BucketKey(bucket, ByteBuffer.wrap(key)));
            return f == null ? null : f.get(field);
        }

        @Override
        public void putField(int bucket, byte[] key, byte[] field, byte[] value) {
            fields.computeIfAbsent(new BucketKey(bucket, ByteBuffer.wrap(key.clone())), k -> new java.util.TreeMap<>(Arrays::compareUnsigned))
                    .put(field.clone(), value.clone());
        }

        @Override
        public void deleteField(int bucket, byte[] key, byte[] field) {
            java.util.NavigableMap<byte[], byte[]> f = fields.get(new BucketKey(bucket, ByteBuffer.wrap(key)));
            if (f != null) f.remove(field);
        }

        @Override
        public void clearFields(int bucket, byte[] key, long fieldCount) {
            fields.remove(new BucketKey(bucket, ByteBuffer.wrap(key)));
        }

        @Override
        public List<Field> fields(int bucket, byte[] key) {
            java.util.NavigableMap<byte[], byte[]> f = fields.get(new BucketKey(bucket, ByteBuffer.wrap(key)));
            List<Field> out = new ArrayList<>();
            if (f != null) f.forEach((name, value) -> out.add(new Field(name, value)));
            return out;
        }
    };
    private final Map<BucketKey, java.util.NavigableMap<byte[], byte[]>> fields = new ConcurrentHashMap<>();
    private final KvApplier applier;
    private final int bucketCount;

    InMemoryKvBackend(int bucketCount, int maxValueBytes) {
        this.bucketCount = bucketCount;
        this.applier = new KvApplier(maxValueBytes);
    }

    InMemoryKvBackend() {
        this(64, RespConfig.DEFAULT_MAX_VALUE_BYTES);
    }

    /** Each bucket's version for WATCH: bumped by every call that writes to it, as storage bumps it per entry. */
    private final Map<Integer, Long> versions = new java.util.HashMap<>();

    @Override
    public synchronized CompletableFuture<List<OpResult>> execute(List<KvOp> ops) {
        long now = System.currentTimeMillis();
        List<OpResult> results = new ArrayList<>(ops.size());
        java.util.Set<Integer> written = new java.util.HashSet<>();
        for (int i = 0; i < ops.size(); i++) {
            KvOp op = ops.get(i);
            long version = versions.getOrDefault(op.bucket(), 0L);
            if (op.type() == KvOp.Type.BUCKET_VERSION) {
                results.add(OpResult.integer(version));
            } else if (op.type() == KvOp.Type.TX_GUARD) {
                boolean holds = !written.contains(op.bucket()) && version == op.arg();
                int skipped = holds ? 0 : Math.min(KvOp.txGuarded(op), ops.size() - i - 1);
                for (int j = 0; j <= skipped; j++) results.add(holds ? OpResult.OK : OpResult.NIL);
                i += skipped;
            } else {
                OpResult r = applier.apply(op, view, now);
                results.add(r);
                if (!op.readOnly() && !r.isError()) written.add(op.bucket());
            }
        }
        for (int bucket : written) versions.merge(bucket, 1L, Long::sum);
        return CompletableFuture.completedFuture(results);
    }

    @Override
    public synchronized CompletableFuture<Long> dbSize() {
        long now = System.currentTimeMillis();
        return CompletableFuture.completedFuture(
                entries.values().stream().filter(v -> !StoredValue.isExpired(v, now)).count());
    }

    /** Exact: every live key, those with a TTL and their average remaining TTL. */
    @Override
    public synchronized CompletableFuture<KeyspaceStats> keyspaceStats() {
        long now = System.currentTimeMillis();
        long keys = 0, expires = 0, ttlSum = 0;
        for (byte[] v : entries.values()) {
            if (StoredValue.isExpired(v, now)) continue;
            keys++;
            long at = StoredValue.expireAtMs(v);
            if (at > 0) {
                expires++;
                ttlSum += at - now;
            }
        }
        return CompletableFuture.completedFuture(new KeyspaceStats(keys, expires, expires == 0 ? 0 : ttlSum / expires));
    }

    @Override
    public CompletableFuture<Long> exactKeyCount() {
        return dbSize();
    }

    @Override
    public synchronized CompletableFuture<List<byte[]>> keys(java.util.function.Predicate<byte[]> match, int maxKeys) {
        List<byte[]> out = new ArrayList<>();
        for (BucketKey k : liveKeysInOrder()) {
            byte[] key = bytesOf(k);
            if (!match.test(key)) continue;
            if (out.size() == maxKeys) {
                return CompletableFuture.failedFuture(new io.cairn.core.CairnException(io.cairn.core.ErrorCode.TOO_MANY_KEYS, "too many"));
            }
            out.add(key);
        }
        return CompletableFuture.completedFuture(out);
    }

    @Override
    public synchronized CompletableFuture<Long> flushAll() {
        long n = entries.size();
        entries.clear();
        fields.clear();
        return CompletableFuture.completedFuture(n);
    }

    /** Keys in (bucket, key) order after {@code from}, like the real scan. */
    @Override
    public synchronized CompletableFuture<ScanPage> scan(KeyPage.Position from, int count) {
        List<byte[]> out = new ArrayList<>();
        for (BucketKey k : liveKeysInOrder()) {
            byte[] key = bytesOf(k);
            boolean after = k.bucket() > from.bucket() || (k.bucket() == from.bucket()
                    && (from.afterKey() == null || Arrays.compareUnsigned(key, from.afterKey()) > 0));
            if (!after) continue;
            out.add(key);
            if (out.size() == count) return CompletableFuture.completedFuture(new ScanPage(out, new KeyPage.Position(k.bucket(), key)));
        }
        return CompletableFuture.completedFuture(new ScanPage(out, null));
    }

    private List<BucketKey> liveKeysInOrder() {
        long now = System.currentTimeMillis();
        List<BucketKey> keys = new ArrayList<>();
        entries.forEach((k, v) -> {
            if (!StoredValue.isExpired(v, now)) keys.add(k);
        });
        keys.sort(Comparator.comparingInt(BucketKey::bucket).thenComparing((a, b) -> Arrays.compareUnsigned(bytesOf(a), bytesOf(b))));
        return keys;
    }

    private static byte[] bytesOf(BucketKey k) {
        ByteBuffer b = k.key().duplicate();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    @Override
    public int bucketCount() {
        return bucketCount;
    }

    @Override
    public Map<String, Map<String, String>> info() {
        Map<String, String> section = new LinkedHashMap<>();
        section.put("backend", "in-memory");
        section.put("bucket_count", Integer.toString(bucketCount));
        return Map.of("cairn", section);
    }
}
