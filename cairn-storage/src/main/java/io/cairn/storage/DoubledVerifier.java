package io.cairn.storage;

import io.cairn.core.BucketRecord;
import io.cairn.core.doubled.DoubledVerification;
import io.cairn.core.doubled.SelfCheckSchedule;
import io.cairn.core.move.MoveCommand;
import io.cairn.core.move.MoveQuery;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.topology.Topology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;

/**
 * The I/O edge of {@link DoubledVerification} on a storage node: one {@link DriverLoop} that ticks it
 * every {@code tickMs}, hands it routers' Verify requests, reaches the other replicasets through
 * a {@link DataPlaneMovePort}, and logs what it contained. Also the collector of quarantined copies
 * past their retention. Followers do nothing.
 */
public final class DoubledVerifier implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DoubledVerifier.class);
    static final long COLLECT_EVERY_MS = 60_000;

    /**
     * @param selfCheckBucketsPerSecond writable buckets self-checked per second (0: only on request)
     * @param maxBatch                  buckets per check round (one query per other replicaset)
     * @param tickMs                    how often the driver looks for work
     * @param quarantineRetention       how long a quarantined copy's data is kept before the collector may drop it
     */
    public record Settings(int selfCheckBucketsPerSecond, int maxBatch, long tickMs, Duration quarantineRetention) {
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
    private final DriverLoop driver;
    private final DataPlaneMovePort port;
    private final DoubledVerification verification;
    private final AtomicLong checked = new AtomicLong();
    private final AtomicLong contained = new AtomicLong();
    private volatile IntConsumer ownerConfirmed = bucket -> {};
    private volatile Topology topology;
    /** Last time the quarantine collector looked (driver thread). */
    private long lastCollectMs;

    public DoubledVerifier(String replicaset, StorageNode node, Settings settings, LongSupplier clock) {
        this.replicaset = replicaset;
        this.node = node;
        this.settings = settings;
        this.clock = clock;
        this.driver = new DriverLoop("cairn-doubled-" + node.id(), "doubled-bucket verification");
        this.port = new DataPlaneMovePort(driver);
        DoubledVerification.Local local = new DoubledVerification.Local() {
            @Override
            public boolean isLeader() {
                return node.isLeader();
            }

            @Override
            public Collection<BucketRecord> records() {
                return node.bucketRecords();
            }
        };
        this.verification = new DoubledVerification(replicaset, port, local,
                new SelfCheckSchedule(settings.selfCheckBucketsPerSecond(), settings.maxBatch()), settings.maxBatch(),
                new DoubledVerification.Events() {
                    @Override
                    public void contained(int bucket, long generation, String reason) {
                        log.info("bucket {} on {} (generation {}) contained as doubled: {}", bucket, replicaset, generation, reason);
                    }

                    @Override
                    public void containRefused(int bucket, String why) {
                        log.info("containing doubled bucket {} on {} did not happen: {}", bucket, replicaset, why);
                    }

                    @Override
                    public void confirmedOwner(int bucket, long generation) {
                        ownerConfirmed.accept(bucket);
                    }
                });
    }

    public DoubledVerifier start() {
        node.onVerifyRequest(this::request);
        driver.every(settings.tickMs(), this::tick);
        return this;
    }

    /**
     * A bucket rebuilt from a backup is restored by {@code archives} only after this check confirmed the
     * copy here as its legitimate owner (docs/archive.md, "Restoring one replicaset"); in a cluster of
     * one replicaset there is no one to ask, and it is confirmed at once.
     */
    public void confirmsRestoresOf(BucketArchives archives) {
        ownerConfirmed = archives::confirmedOwner;
        archives.ownerCheck(bucket -> {
            Topology t = topology;
            if (t != null && t.replicasets().size() == 1) archives.confirmedOwner(bucket);
            else request(List.of(bucket));
        });
    }

    public void setTopology(Topology topology) {
        this.topology = topology;
        driver.execute(() -> {
            port.setTopology(topology);
            verification.setOthers(topology.replicasets().stream().map(ReplicasetSpec::id).toList());
        });
    }

    /** A router asks to verify {@code buckets}; they are checked before the self-check's, at once if nothing is in flight. */
    void request(List<Integer> buckets) {
        // false when the node is shutting down; the router asks again next round
        driver.offer(() -> {
            verification.request(buckets);
            tick();
        });
    }

    /** Buckets checked and copies contained by this node while leader, since it started. */
    public Checks counters() {
        return new Checks(checked.get(), contained.get());
    }

    /** What {@link #counters()} counts: buckets checked for doubles, and copies contained as doubled, while leader. */
    public record Checks(long bucketsChecked, long copiesContained) {}

    private void tick() {
        try {
            collectQuarantined();
            verification.tick(clock.getAsLong());
            checked.set(verification.checked());
            contained.set(verification.contained());
        } catch (RuntimeException e) {
            log.warn("doubled-bucket check on {} failed: {}", replicaset, e.toString());
        }
    }

    /**
     * Once a minute on the leader: quarantined copies past their retention get a DropQuarantined
     * entry. The ledger judges the retention again at the entry's stamp, so a skewed clock cannot drop early.
     */
    private void collectQuarantined() {
        long now = clock.getAsLong();
        if (now - lastCollectMs < COLLECT_EVERY_MS || !node.isLeader()) return;
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

    @Override
    public void close() {
        driver.close();
        port.close();
    }
}
