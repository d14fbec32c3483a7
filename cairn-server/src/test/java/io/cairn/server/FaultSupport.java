package io.cairn.server;

import io.cairn.client.DataPlaneClient;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpCodec;
import io.cairn.core.kv.OpResult;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.wire.StorageRequest;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.config.ConfigLoader;
import io.cairn.server.process.LocalCluster;
import io.cairn.server.process.Ports;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisConnectionException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/** Helpers of the fault tests (KillMidMoveTest, MemberRestoreTest). */
final class FaultSupport {
    private static final long START = System.nanoTime();

    /** One line of a fault test's time line: milliseconds since the fault tests began, and what happened. */
    static void phase(String what) {
        System.out.printf("[%6d ms] %s%n", java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - START), what);
    }

    private FaultSupport() {}

    /**
     * As {@link TestClusters#config}, with a second router {@code r2} in the config (a local
     * cluster starts only {@code r1}; a test starts {@code r2} itself when it needs a router that
     * has written nothing).
     */
    static ClusterConfig configWithTwoRouters(Path dir, int replicasets, int replicas, int buckets, Map<String, Object> extra) throws IOException {
        int ports = 12 + 3 * replicasets * replicas;
        int base = Ports.freeRange(ports + 1);
        Map<String, Object> tree = new LinkedHashMap<>(LocalCluster.configTree(
                new LocalCluster.Shape(replicasets, replicas, buckets, base + ports - 1, base)));
        List<Object> routers = new ArrayList<>((List<?>) tree.get("routers"));
        // base + 3 .. base + 9 are unused by a local cluster's layout; base + ports is past its last port.
        routers.add(Map.of("id", "r2", "host", "127.0.0.1", "respPort", base + ports, "adminPort", base + 3));
        tree.put("routers", routers);
        tree.putAll(extra);
        Path file = dir.resolve(LocalCluster.CONFIG_FILE);
        ConfigLoader.write(file, tree);
        return ConfigLoader.load(file);
    }

    /**
     * GETs of {@code keys} answered by one member from its own copy (a data-plane follower read with
     * no minimum index, as routers send them). Key -> value ({@link #NIL} for none).
     *
     * @throws IllegalStateException when the member refuses (it has not heard from a leader lately) or does not answer
     */
    static Map<String, String> readFromMember(ClusterConfig config, String replicaset, String member, java.util.Collection<String> keys) {
        ReplicasetSpec spec = config.topology().replicaset(replicaset).orElseThrow();
        List<String> list = new ArrayList<>(keys);
        List<KvOp> ops = new ArrayList<>();
        for (String k : list) {
            byte[] key = k.getBytes(StandardCharsets.UTF_8);
            ops.add(KvOp.get(io.cairn.core.BucketHasher.bucketOf(key, config.topology().bucketCount()), key));
        }
        try (DataPlaneClient client = new DataPlaneClient(spec, 10_000, null)) {
            List<OpResult> results = OpCodec.decodeResults(client.staleRead(member, 0, StorageRequest.read(ops), client.budgetDeadlineNs())
                    .get(15, java.util.concurrent.TimeUnit.SECONDS).body());
            Map<String, String> out = new LinkedHashMap<>();
            for (int i = 0; i < list.size(); i++) {
                OpResult r = results.get(i);
                out.put(list.get(i), r.isError() ? "ERROR " + r.error() : r.bytes() == null ? NIL : new String(r.bytes(), StandardCharsets.UTF_8));
            }
            return out;
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(member + " refused or did not answer: " + e.getCause(), e.getCause());
        } catch (Exception e) {
            throw new IllegalStateException(member + " did not answer: " + e, e);
        }
    }

    /** Stands for "no such key" among allowed values. */
    static final String NIL = "(nil)";

    /**
     * A client thread of a fault test: runs a bounded loop (at most {@code maxSteps} steps, at
     * most {@code maxTime}, until stopped) of requests through a router, and counts what was
     * acknowledged and what failed (a failed request may or may not have been applied).
     */
    abstract static class LoadThread {
        final AtomicInteger acks = new AtomicInteger();
        private final AtomicInteger steps = new AtomicInteger();
        final Map<String, AtomicInteger> errors = new ConcurrentHashMap<>();
        /** Replies that no correct history explains (e.g. a DEL of a key that must exist answering 0). */
        final List<String> anomalies = Collections.synchronizedList(new ArrayList<>());
        private final AtomicBoolean stop = new AtomicBoolean();
        private final Thread thread;
        private final int port;
        private final int maxSteps;
        private final Duration maxTime;
        private Jedis jedis;

        LoadThread(String name, int port, int maxSteps, Duration maxTime) {
            this.port = port;
            this.maxSteps = maxSteps;
            this.maxTime = maxTime;
            this.thread = new Thread(this::run, name);
            thread.setDaemon(true);
        }

        @SuppressWarnings("unchecked")
        <T extends LoadThread> T start() {
            thread.start();
            return (T) this;
        }

        String name() {
            return thread.getName();
        }

        /** One step (a few requests) on {@code jedis}; a request's failure is recorded with {@link #failed}. */
        abstract void step(int i);

        Jedis jedis() {
            return jedis;
        }

        void failed(RuntimeException e) {
            String m = e.getMessage() == null ? "" : e.getMessage().replaceAll("[0-9]+", "N");
            errors.computeIfAbsent(e.getClass().getSimpleName() + ": " + (m.length() > 60 ? m.substring(0, 60) : m),
                    k -> new AtomicInteger()).incrementAndGet();
            if (e instanceof JedisConnectionException) {
                jedis.close();
                jedis = new Jedis("127.0.0.1", port, 15_000);
            }
        }

        private void run() {
            long end = System.nanoTime() + maxTime.toNanos();
            jedis = new Jedis("127.0.0.1", port, 15_000);
            try {
                for (int i = 0; i < maxSteps && !stop.get() && System.nanoTime() < end; i++) {
                    step(i);
                    steps.incrementAndGet();
                }
            } finally {
                jedis.close();
            }
        }

        int errorCount() {
            return errors.values().stream().mapToInt(AtomicInteger::get).sum();
        }

        /** Steps completed so far. */
        int steps() {
            return steps.get();
        }

        /** Waits (bounded) until the thread has run its steps; fails when it has not. */
        void finish(Duration timeout) throws InterruptedException {
            thread.join(timeout.toMillis());
            if (thread.isAlive()) throw new IllegalStateException(name() + " still running after " + timeout);
        }

        void stopAndJoin() throws InterruptedException {
            stop.set(true);
            thread.join(60_000);
            if (thread.isAlive()) throw new IllegalStateException(name() + " did not stop");
        }

        String summary() {
            return name() + ": " + acks.get() + " acknowledged, " + errorCount() + " errors " + errors + ", anomalies " + anomalies;
        }
    }

    /**
     * A client thread mixing, per step, a SET of one of its keys, a DEL of the next key written
     * before the fault (so part of any copy of its bucket), a fresh key created and deleted
     * again, and an INCR of one of its counters (written as "0" beforehand). Each key is written
     * by one thread only, so the thread knows the values it may read back: exactly the outcome of
     * its last acknowledged request ({@link #NIL} after a DEL), or, after failed requests (which
     * may or may not have been applied), any of their outcomes too. An INCR is never applied
     * twice, so a counter ends between its acknowledged and its attempted INCRs.
     */
    static final class MixedWriter extends LoadThread {
        final Map<String, Set<String>> allowed = new ConcurrentHashMap<>();
        final Set<String> acknowledgedDeletes = ConcurrentHashMap.newKeySet();
        final Map<String, AtomicInteger> incrAcknowledged = new ConcurrentHashMap<>();
        final Map<String, AtomicInteger> incrAttempted = new ConcurrentHashMap<>();
        /** Reads right after an acknowledged SET (with {@link #verifyingReads}) that returned something else. */
        final List<String> wrongReads = Collections.synchronizedList(new ArrayList<>());
        private final List<String> overwrite;
        private final List<String> deletes;
        private final String freshPrefix;
        private final List<String> counters;
        private volatile boolean verifyReads;

        /**
         * @param overwrite   keys SET in turn (key -> value before the test)
         * @param deletes     keys deleted one per step (key -> value before the test)
         * @param freshPrefix prefix of the keys created and deleted again, one per step (null: none)
         * @param counters    keys INCRed in turn (each "0" before the test)
         */
        MixedWriter(String name, int port, Map<String, String> overwrite, Map<String, String> deletes, String freshPrefix,
                    List<String> counters, int maxSteps, Duration maxTime) {
            super(name, port, maxSteps, maxTime);
            this.overwrite = new ArrayList<>(overwrite.keySet());
            this.deletes = new ArrayList<>(deletes.keySet());
            this.freshPrefix = freshPrefix;
            this.counters = counters;
            overwrite.forEach((k, v) -> allowed.put(k, Set.of(v)));
            deletes.forEach((k, v) -> allowed.put(k, Set.of(v)));
            for (String c : counters) {
                incrAcknowledged.put(c, new AtomicInteger());
                incrAttempted.put(c, new AtomicInteger());
            }
        }

        /** Also GETs each key right after its SET was acknowledged: it must read that value (read your writes). */
        MixedWriter verifyingReads() {
            verifyReads = true;
            return this;
        }

        @Override
        void step(int i) {
            if (!overwrite.isEmpty()) set(overwrite.get(i % overwrite.size()), name() + "-" + i);
            if (i < deletes.size()) delete(deletes.get(i), true);
            if (freshPrefix != null) {
                String fresh = freshPrefix + i;
                allowed.put(fresh, Set.of(NIL));
                set(fresh, "fresh-" + i);
                delete(fresh, false);
            }
            if (!counters.isEmpty()) incr(counters.get(i % counters.size()));
        }

        private void set(String key, String value) {
            try {
                String reply = jedis().set(key, value);
                if (!"OK".equals(reply)) anomalies.add("SET " + key + " answered " + reply);
                allowed.put(key, Set.of(value));
                acks.incrementAndGet();
            } catch (RuntimeException e) {
                maybe(key, value);
                failed(e);
                return;
            }
            if (verifyReads) {
                try {
                    String read = jedis().get(key);
                    if (!value.equals(read)) wrongReads.add(key + "=" + read + ", expected " + value);
                } catch (RuntimeException e) {
                    failed(e);
                }
            }
        }

        private void delete(String key, boolean mustExist) {
            try {
                long n = jedis().del(key);
                if (mustExist && n != 1) anomalies.add("DEL " + key + " (written before the test, never deleted) answered " + n);
                allowed.put(key, Set.of(NIL));
                acknowledgedDeletes.add(key);
                acks.incrementAndGet();
            } catch (RuntimeException e) {
                maybe(key, NIL);
                failed(e);
            }
        }

        private void incr(String key) {
            int low = incrAcknowledged.get(key).get() + 1;
            int high = incrAttempted.get(key).incrementAndGet();
            try {
                long reply = jedis().incr(key);
                if (reply < low || reply > high) anomalies.add("INCR " + key + " answered " + reply + ", expected " + low + ".." + high);
                incrAcknowledged.get(key).incrementAndGet();
                acks.incrementAndGet();
            } catch (RuntimeException e) {
                failed(e);
            }
        }

        private void maybe(String key, String outcome) {
            Set<String> values = new HashSet<>(allowed.getOrDefault(key, Set.of()));
            values.add(outcome);
            allowed.put(key, Set.copyOf(values));
        }

        /** Counter values this writer allows: its acknowledged INCRs up to its attempted ones. */
        boolean counterAllows(String key, String value) {
            if (NIL.equals(value)) return false;
            long v = Long.parseLong(value);
            return v >= incrAcknowledged.get(key).get() && v <= incrAttempted.get(key).get();
        }

        @Override
        String summary() {
            return super.summary() + ", " + acknowledgedDeletes.size() + " deletes acknowledged";
        }
    }

    /**
     * Reads a fixed set of keys again and again through a router and records every value that
     * differs from the one expected (the state acknowledged before the reader started: a
     * different value is a stale read).
     */
    static final class CheckingReader extends LoadThread {
        final List<String> staleReads = Collections.synchronizedList(new ArrayList<>());
        final AtomicInteger staleCount = new AtomicInteger();
        /** Stale reads of keys whose delete was acknowledged: deleted keys served again. */
        final AtomicInteger resurrected = new AtomicInteger();
        private final Map<String, String> expected;

        CheckingReader(String name, int port, Map<String, String> expected, int maxSteps, Duration maxTime) {
            super(name, port, maxSteps, maxTime);
            this.expected = expected;
        }

        @Override
        void step(int i) {
            try {
                Map<String, String> read = readAll(jedis(), expected.keySet());
                for (var e : read.entrySet()) {
                    if (e.getValue().equals(expected.get(e.getKey()))) continue;
                    if (NIL.equals(expected.get(e.getKey())) && resurrected.incrementAndGet() == 1) {
                        staleReads.add("round " + i + ": deleted " + e.getKey() + "=" + e.getValue());
                    }
                    if (staleCount.incrementAndGet() <= 10) staleReads.add("round " + i + ": " + e.getKey() + "=" + e.getValue() + ", expected " + expected.get(e.getKey()));
                }
                acks.incrementAndGet();
            } catch (RuntimeException e) {
                failed(e);
            }
        }

        @Override
        String summary() {
            return super.summary() + ", " + staleCount.get() + " stale values read (" + resurrected.get() + " of deleted keys), first " + staleReads;
        }
    }

    /**
     * Reads every key the writers touched (and {@code untouched}, with their values before the
     * test) through the router on {@code port}; returns the keys reading a value no acknowledged
     * history allows (the first 20, and how many more), and DBSIZE when it does not lie between
     * the keys that surely exist and those that may.
     */
    static List<String> wrongValues(int port, Map<String, String> untouched, List<MixedWriter> writers) {
        Map<String, Set<String>> allowed = new LinkedHashMap<>();
        untouched.forEach((k, v) -> allowed.put(k, Set.of(v)));
        Map<String, MixedWriter> counterOwner = new LinkedHashMap<>();
        for (MixedWriter w : writers) {
            allowed.putAll(w.allowed);
            w.incrAcknowledged.keySet().forEach(c -> counterOwner.put(c, w));
        }
        allowed.keySet().removeAll(counterOwner.keySet());
        List<String> keys = new ArrayList<>(allowed.keySet());
        keys.addAll(counterOwner.keySet());
        List<String> wrong = new ArrayList<>();
        int more = 0;
        try (Jedis jedis = new Jedis("127.0.0.1", port, 30_000)) {
            Map<String, String> read = readAll(jedis, keys);
            for (var e : read.entrySet()) {
                MixedWriter owner = counterOwner.get(e.getKey());
                boolean ok = owner != null ? owner.counterAllows(e.getKey(), e.getValue()) : allowed.get(e.getKey()).contains(e.getValue());
                if (!ok && wrong.size() >= 20) {
                    more++;
                } else if (!ok) {
                    wrong.add(e.getKey() + "=" + e.getValue() + " (allowed " + (owner != null ? owner.incrAcknowledged.get(e.getKey()) + ".."
                            + owner.incrAttempted.get(e.getKey()) : allowed.get(e.getKey())) + ")");
                }
            }
            if (more > 0) wrong.add("... and " + more + " more keys");
            long must = allowed.values().stream().filter(v -> !v.contains(NIL)).count() + counterOwner.size();
            long may = allowed.values().stream().filter(v -> !v.equals(Set.of(NIL))).count() + counterOwner.size();
            long size = jedis.dbSize();
            if (size < must || size > may) wrong.add("DBSIZE " + size + ", expected " + must + ".." + may);
        }
        return wrong;
    }

    /** GETs every key in pipelined batches of 500: key -> value, {@link #NIL} for none. */
    static Map<String, String> readAll(Jedis jedis, java.util.Collection<String> keys) {
        Map<String, String> out = new LinkedHashMap<>();
        List<String> list = new ArrayList<>(keys);
        for (int from = 0; from < list.size(); from += 500) {
            List<String> batch = list.subList(from, Math.min(list.size(), from + 500));
            Pipeline p = jedis.pipelined();
            List<Response<String>> got = new ArrayList<>();
            for (String k : batch) got.add(p.get(k));
            p.sync();
            for (int i = 0; i < batch.size(); i++) out.put(batch.get(i), got.get(i).get() == null ? NIL : got.get(i).get());
        }
        return out;
    }
}
