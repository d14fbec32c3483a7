package io.cairn.server;

import io.cairn.core.BucketRecord;
import io.cairn.core.move.MoveQuery.BucketDigest;
import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.Topology;
import io.cairn.core.wire.StorageStats;
import io.cairn.rebalancer.DataPlaneMovePort;
import io.cairn.server.process.LocalCluster;
import io.cairn.server.process.StorageProcess;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisConnectionException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Helpers for {@link MoveFaultTest}: leader lookup, a read-only view of bucket records, a recording writer. */
final class MoveFaultSupport {
    private MoveFaultSupport() {}

    /** Id of the running node of {@code replicaset} that is its Raft leader (waits for one, bounded). */
    static String leaderOf(LocalCluster cluster, String replicaset) {
        List<String> ids = nodeIds(cluster, replicaset);
        String[] found = new String[1];
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20)).until(() -> {
            for (String id : ids) {
                StorageProcess p = cluster.storage(id);
                if (p != null && p.node().isLeader()) {
                    found[0] = id;
                    return true;
                }
            }
            return false;
        });
        return found[0];
    }

    static List<String> nodeIds(LocalCluster cluster, String replicaset) {
        return cluster.config().topology().replicaset(replicaset).orElseThrow().nodes().stream().map(NodeAddress::id).toList();
    }

    /** This node's own key count (the leader's view when {@code nodeId} leads). */
    static long localKeys(LocalCluster cluster, String nodeId) {
        StorageProcess p = cluster.storage(nodeId);
        return p == null ? -1 : p.node().localStats().keyCount();
    }

    static long longOf(Map<String, Object> progress, String key) {
        return progress.get(key) instanceof Number n ? n.longValue() : 0;
    }

    /** Mover progress says: running, nothing in flight, at least {@code done} moves ended (moved or rolled back). */
    static boolean settled(Map<String, Object> progress, long done) {
        return Boolean.TRUE.equals(progress.get("running")) && longOf(progress, "inFlight") == 0
                && longOf(progress, "moved") + longOf(progress, "rolledBack") >= done;
    }

    /**
     * Asks replicasets for a bucket's record and data digest through the same Raft queries the
     * move driver uses (read-only; answered by the leader).
     */
    static final class Records implements AutoCloseable {
        private final ScheduledExecutorService driver = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "move-fault-probe");
            t.setDaemon(true);
            return t;
        });
        private final DataPlaneMovePort port = new DataPlaneMovePort(driver);

        Records(Topology topology) throws Exception {
            driver.submit(() -> port.setTopology(topology)).get(10, TimeUnit.SECONDS);
        }

        /** The digest, or null when the replicaset did not answer. */
        BucketDigest digest(String replicaset, int bucket) throws Exception {
            CompletableFuture<BucketDigest> f = new CompletableFuture<>();
            driver.execute(() -> port.digest(replicaset, bucket, f::complete));
            return f.get(30, TimeUnit.SECONDS);
        }

        /** Submits one move command to the replicaset's log, as a driver would; null when it did not answer. */
        io.cairn.core.move.MoveReply submit(String replicaset, io.cairn.core.move.MoveCommand command) throws Exception {
            CompletableFuture<io.cairn.core.move.MoveReply> f = new CompletableFuture<>();
            driver.execute(() -> port.submit(replicaset, command, f::complete));
            return f.get(30, TimeUnit.SECONDS);
        }

        io.cairn.core.move.MoveQuery.ChunkPage readChunk(String replicaset, io.cairn.core.move.MoveQuery.ReadChunk query) throws Exception {
            CompletableFuture<io.cairn.core.move.MoveQuery.ChunkPage> f = new CompletableFuture<>();
            driver.execute(() -> port.readChunk(replicaset, query, f::complete));
            return f.get(30, TimeUnit.SECONDS);
        }

        /** digest(...) of every listed replicaset, as text for failure messages. */
        String describe(List<String> replicasets, int bucket) {
            Map<String, String> out = new LinkedHashMap<>();
            for (String rs : replicasets) {
                try {
                    BucketDigest d = digest(rs, bucket);
                    out.put(rs, d == null ? "no answer" : d.record() + " keys=" + d.keyCount());
                } catch (Exception e) {
                    out.put(rs, e.toString());
                }
            }
            return out.toString();
        }

        @Override
        public void close() throws Exception {
            driver.submit(port::close).get(10, TimeUnit.SECONDS);
            driver.shutdownNow();
        }
    }

    static String describe(BucketRecord r) {
        return r == null ? "none" : r.state() + "@" + r.generation() + (r.peer().isEmpty() ? "" : "->" + r.peer()) + " flags=" + r.flags();
    }

    /**
     * A writer thread cycling over a fixed set of existing keys (so DBSIZE does not change). For
     * each key it keeps the last acknowledged value and the values whose SET failed after it
     * (a failed SET may or may not have been applied, so any of them may legitimately read back).
     */
    static final class RecordingWriter implements AutoCloseable {
        final Map<String, String> acknowledged = new ConcurrentHashMap<>();
        final Map<String, Set<String>> uncertain = new ConcurrentHashMap<>();
        final Map<String, AtomicInteger> errors = new ConcurrentHashMap<>();
        final AtomicInteger acks = new AtomicInteger();
        final AtomicInteger attempts = new AtomicInteger();
        /** Reads right after an acknowledged SET that returned something else (key=read, expected). */
        final List<String> wrongReads = java.util.Collections.synchronizedList(new ArrayList<>());
        private final AtomicBoolean stop = new AtomicBoolean();
        private final Thread thread;
        private volatile boolean verifyReads;

        RecordingWriter(String name, int port, List<String> keys, int maxWrites, Duration maxTime) {
            thread = new Thread(() -> run(port, keys, maxWrites, maxTime), name);
            thread.setDaemon(true);
        }

        RecordingWriter start() {
            thread.start();
            return this;
        }

        /** Also GETs each key right after its SET was acknowledged: it must read that value (a failed GET is an error). */
        RecordingWriter verifyingReads() {
            verifyReads = true;
            return this;
        }

        private void run(int port, List<String> keys, int maxWrites, Duration maxTime) {
            long end = System.nanoTime() + maxTime.toNanos();
            Jedis jedis = new Jedis("127.0.0.1", port, 15_000);
            try {
                for (int i = 0; i < maxWrites && !stop.get() && System.nanoTime() < end; i++) {
                    String key = keys.get(i % keys.size());
                    String value = thread.getName() + "-" + i;
                    attempts.incrementAndGet();
                    try {
                        String reply = jedis.set(key, value);
                        if (!"OK".equals(reply)) throw new IllegalStateException("SET answered " + reply);
                        acknowledged.put(key, value);
                        uncertain.remove(key);
                        acks.incrementAndGet();
                        if (verifyReads) {
                            String read = jedis.get(key);
                            if (!value.equals(read)) wrongReads.add(key + "=" + read + ", expected " + value);
                        }
                    } catch (RuntimeException e) {
                        uncertain.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(value);
                        String kind = e.getClass().getSimpleName() + ": " + firstWords(e.getMessage());
                        errors.computeIfAbsent(kind, k -> new AtomicInteger()).incrementAndGet();
                        if (e instanceof JedisConnectionException) {
                            jedis.close();
                            jedis = new Jedis("127.0.0.1", port, 15_000);
                        }
                    }
                }
            } finally {
                jedis.close();
            }
        }

        private static String firstWords(String message) {
            if (message == null) return "";
            String m = message.replaceAll("[0-9]+", "N");
            return m.length() > 60 ? m.substring(0, 60) : m;
        }

        String name() {
            return thread.getName();
        }

        int errorCount() {
            return errors.values().stream().mapToInt(AtomicInteger::get).sum();
        }

        void stopAndJoin() throws InterruptedException {
            stop.set(true);
            thread.join(30_000);
            if (thread.isAlive()) throw new IllegalStateException(thread.getName() + " did not stop");
        }

        @Override
        public void close() throws InterruptedException {
            stopAndJoin();
        }
    }

    /** The values {@code key} may hold: its last acknowledged value (or {@code initial}) and any failed SET after it. */
    static List<String> allowedValues(String key, String initial, List<RecordingWriter> writers) {
        List<String> allowed = new ArrayList<>();
        String acked = null;
        for (RecordingWriter w : writers) {
            if (w.acknowledged.containsKey(key)) acked = w.acknowledged.get(key);
        }
        allowed.add(acked != null ? acked : initial);
        for (RecordingWriter w : writers) allowed.addAll(w.uncertain.getOrDefault(key, Set.of()));
        return allowed;
    }

    static Jedis jedis(LocalCluster cluster) {
        return new Jedis("127.0.0.1", cluster.router().respPort(), 15_000);
    }

    /** No DOUBLED_BUCKETS or unreachable replicaset reported once the moves ended (bounded: a round may be under way). */
    static void assertNoProblems(Supplier<Map<String, Object>> progress) {
        await("no rebalancer problems").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                .untilAsserted(() -> assertThat((List<?>) progress.get().get("problems")).as("problems").isEmpty());
    }

    static void assertEveryKeyReadsBack(LocalCluster cluster, Map<String, String> initial, List<RecordingWriter> writers) {
        try (Jedis jedis = jedis(cluster)) {
            List<String> keys = new ArrayList<>(initial.keySet());
            List<String> wrong = new ArrayList<>();
            for (int from = 0; from < keys.size(); from += 500) {
                List<String> batch = keys.subList(from, Math.min(keys.size(), from + 500));
                Pipeline p = jedis.pipelined();
                List<Response<String>> got = new ArrayList<>();
                for (String k : batch) got.add(p.get(k));
                p.sync();
                for (int i = 0; i < batch.size(); i++) {
                    String k = batch.get(i);
                    List<String> allowed = allowedValues(k, initial.get(k), writers);
                    String value = got.get(i).get();
                    if (!allowed.contains(value)) wrong.add(k + "=" + value + " (allowed " + allowed + ")");
                }
            }
            assertThat(wrong).as("keys not reading back their last acknowledged value").isEmpty();
        }
    }

    static void assertDbSize(LocalCluster cluster, long expected) {
        await("DBSIZE").atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            try (Jedis jedis = jedis(cluster)) {
                assertThat(jedis.dbSize()).isEqualTo(expected);
            }
        });
    }

    /** Every replicaset answers, and the buckets they own add up to {@code buckets}: none doubled, none lost. */
    static void awaitOwnedBucketsAddUp(LocalCluster cluster, int replicasets, int buckets) {
        await("owned buckets add up").atMost(Duration.ofSeconds(20)).until(() -> {
            Map<String, StorageStats> stats = cluster.router().router().replicasetStats().get(20, TimeUnit.SECONDS);
            return stats.size() == replicasets && stats.values().stream().mapToInt(StorageStats::ownedBuckets).sum() == buckets;
        });
    }

    /** After a restarted node caught up, every member of each replicaset has the same keys and buckets. */
    static void assertReplicasAgree(LocalCluster cluster, List<String> replicasets) {
        for (String rs : replicasets) {
            List<String> ids = nodeIds(cluster, rs);
            await(rs + " members agree").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
                List<String> views = new ArrayList<>();
                for (String id : ids) {
                    StorageProcess p = cluster.storage(id);
                    assertThat(p).as(id + " running").isNotNull();
                    StorageStats st = p.node().localStats();
                    views.add(st.keyCount() + " keys/" + st.ownedBuckets() + " buckets/bsn " + st.lastBsn());
                }
                assertThat(views.stream().distinct().count()).as(rs + " members " + ids + ": " + views).isEqualTo(1);
            });
        }
    }

    /** Every thread's stack, for a move that stood still: what it waits on is the diagnosis. */
    static void dumpThreads() {
        StringBuilder out = new StringBuilder("---- threads of a stalled move ----\n");
        Thread.getAllStackTraces().forEach((t, stack) -> {
            out.append('"').append(t.getName()).append("\" ").append(t.getState()).append('\n');
            for (StackTraceElement e : stack) out.append("    at ").append(e).append('\n');
        });
        System.out.println(out);
    }
}
