package io.cairn.storage;

import io.cairn.core.BucketRecord;
import io.cairn.core.doubled.DoubledCheck;
import io.cairn.core.doubled.SelfCheckSchedule;
import io.cairn.core.move.MoveCommand;
import io.cairn.core.move.MoveQuery;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.topology.Topology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Design 000, step 3 on a storage leader: checks buckets this replicaset holds ACTIVE/PINNED
 * against every other replicaset and contains the copies {@link DoubledCheck} condemns
 * (a replicated {@link MoveCommand.Contain}). Buckets come from two sources: routers' Verify
 * requests (suspected doubles, checked first) and the lazy self-check ({@link SelfCheckSchedule},
 * so detection works with router verification off).
 *
 * <p>Bounds: at most one batch ({@code maxBatch} buckets, one Inspect query per other
 * replicaset) in flight; at most {@link #MAX_PENDING} requested buckets waiting. The decision
 * is pure; this class only asks, decides and submits, on one driver thread. Followers do nothing.
 */
public final class DoubledVerifier implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DoubledVerifier.class);
    static final int MAX_PENDING = 4_096;

    /**
     * @param selfCheckBucketsPerSecond writable buckets self-checked per second (0: only on request)
     * @param maxBatch                  buckets per check round (one query per other replicaset)
     * @param tickMs                    how often the driver looks for work
     * @param quarantineRetention       how long a quarantined copy's data is kept before the collector may drop it
     */
    public record Settings(int selfCheckBucketsPerSecond, int maxBatch, long tickMs, java.time.Duration quarantineRetention) {
        public static final int DEFAULT_SELF_CHECK_BUCKETS_PER_SECOND = 100;
        public static final long DEFAULT_QUARANTINE_RETENTION_HOURS = 7 * 24;

        public Settings {
            if (quarantineRetention.isNegative()) throw new IllegalArgumentException("quarantineRetention must be >= 0");
            if (selfCheckBucketsPerSecond < 0) throw new IllegalArgumentException("selfCheckBucketsPerSecond must be >= 0");
            if (maxBatch < 1 || maxBatch > MoveQuery.MAX_INSPECT) throw new IllegalArgumentException("maxBatch must be 1.." + MoveQuery.MAX_INSPECT);
            if (tickMs < 10) throw new IllegalArgumentException("tickMs must be at least 10");
        }
    }

    private final String replicaset;
    private final StorageNode node;
    private final Settings settings;
    private final LongSupplier clock;
    private final ScheduledExecutorService driver;
    private final RatisMovePort port;
    private final SelfCheckSchedule schedule;
    /** Buckets routers asked about, oldest first (driver thread only). */
    private final Set<Integer> requested = new LinkedHashSet<>();
    private List<String> others = List.of();
    private boolean inFlight;
    /** Last time the quarantine collector looked (driver thread). */
    private long lastCollectMs;
    static final long COLLECT_EVERY_MS = 60_000;
    private final AtomicLong checked = new AtomicLong();
    private final AtomicLong contained = new AtomicLong();

    public DoubledVerifier(String replicaset, StorageNode node, Settings settings, LongSupplier clock) {
        this.replicaset = replicaset;
        this.node = node;
        this.settings = settings;
        this.clock = clock;
        this.driver = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "cairn-doubled-" + node.id());
            t.setDaemon(true);
            return t;
        });
        this.port = new RatisMovePort(driver);
        this.schedule = new SelfCheckSchedule(settings.selfCheckBucketsPerSecond(), settings.maxBatch());
    }

    public DoubledVerifier start() {
        node.onVerifyRequest(this::request);
        driver.scheduleWithFixedDelay(this::tick, settings.tickMs(), settings.tickMs(), TimeUnit.MILLISECONDS);
        return this;
    }

    public void setTopology(Topology topology) {
        driver.execute(() -> {
            port.setTopology(topology);
            others = topology.replicasets().stream().map(ReplicasetSpec::id).filter(id -> !id.equals(replicaset)).sorted().toList();
        });
    }

    /** A router asks to verify {@code buckets}; they are checked before the self-check's, at the next tick. */
    void request(List<Integer> buckets) {
        try {
            driver.execute(() -> {
                for (int b : buckets) if (requested.size() < MAX_PENDING) requested.add(b);
                tick();
            });
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            // the node is shutting down; the router asks again next round
        }
    }

    /** Buckets checked and copies contained by this node while leader, since it started. */
    public long[] counters() {
        return new long[] {checked.get(), contained.get()};
    }

    private void tick() {
        try {
            if (inFlight) return;
            if (!node.isLeader() || others.isEmpty()) {
                requested.clear();
                return;
            }
            collectQuarantined();
            Map<Integer, BucketRecord> writable = new HashMap<>();
            for (BucketRecord r : node.bucketRecords()) if (r.state().servesWrites()) writable.put(r.id(), r);
            List<Integer> batch = new ArrayList<>();
            for (var it = requested.iterator(); it.hasNext() && batch.size() < settings.maxBatch(); ) {
                int b = it.next();
                it.remove();
                if (writable.containsKey(b)) batch.add(b);
            }
            if (batch.isEmpty()) batch = schedule.next(clock.getAsLong(), writable.keySet());
            if (batch.isEmpty()) return;
            check(batch, writable);
        } catch (RuntimeException e) {
            log.warn("doubled-bucket check on {} failed: {}", replicaset, e.toString());
        }
    }

    /**
     * Once a minute: quarantined copies past their retention get a DropQuarantined entry. The
     * ledger judges the retention again at the entry's stamp, so a clock skew cannot drop early.
     */
    private void collectQuarantined() {
        long now = clock.getAsLong();
        if (now - lastCollectMs < COLLECT_EVERY_MS) return;
        lastCollectMs = now;
        long retentionMs = settings.quarantineRetention().toMillis();
        for (BucketRecord r : node.bucketRecords()) {
            if (!r.has(BucketRecord.FLAG_QUARANTINED) || r.has(BucketRecord.FLAG_DATA_DROPPED)) continue;
            long since = node.quarantinedAtMs(r.id());
            if (since < 0 || now - since < retentionMs) continue;
            port.submit(replicaset, new MoveCommand.DropQuarantined(r.id(), r.generation(), retentionMs), reply -> {
                if (reply != null && reply.isOk()) log.info("dropped the quarantined copy of bucket {} on {} after its retention", r.id(), replicaset);
            });
        }
    }

    private void check(List<Integer> batch, Map<Integer, BucketRecord> local) {
        inFlight = true;
        Map<String, List<MoveQuery.BucketReport>> answers = new HashMap<>();
        int[] pending = {others.size()};
        List<String> asked = others;
        for (String rs : asked) {
            port.inspect(rs, new MoveQuery.Inspect(batch, false), reports -> {
                if (reports == null) log.debug("doubled-bucket check: {} did not answer", rs);
                else answers.put(rs, reports);
                if (--pending[0] == 0) decide(batch, local, answers);
            });
        }
    }

    private void decide(List<Integer> batch, Map<Integer, BucketRecord> local, Map<String, List<MoveQuery.BucketReport>> answers) {
        inFlight = false;
        checked.addAndGet(batch.size());
        Map<Integer, Map<String, BucketRecord>> byBucket = new HashMap<>();
        answers.forEach((rs, reports) -> reports.forEach(r -> byBucket.computeIfAbsent(r.record().id(), k -> new HashMap<>()).put(rs, r.record())));
        for (int b : batch) {
            BucketRecord mine = local.get(b);
            DoubledCheck.Decision d = DoubledCheck.decide(mine, byBucket.getOrDefault(b, Map.of()));
            if (d.verdict() != DoubledCheck.Verdict.CONTAIN) continue;
            port.submit(replicaset, new MoveCommand.Contain(b, mine.generation(), d.rivalIds()), reply -> {
                if (reply != null && reply.isOk()) {
                    contained.incrementAndGet();
                    log.info("bucket {} on {} (generation {}) contained as doubled: {}", b, replicaset, mine.generation(), d.reason());
                } else {
                    log.info("containing doubled bucket {} on {} did not happen: {}", b, replicaset, reply == null ? "no answer" : reply.message());
                }
            });
        }
    }

    @Override
    public void close() {
        driver.shutdownNow();
        try {
            driver.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        port.close();
    }
}
