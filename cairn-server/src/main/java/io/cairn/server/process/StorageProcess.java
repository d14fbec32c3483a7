package io.cairn.server.process;

import io.cairn.archive.StoreThrottle;
import io.cairn.archive.ThrottledObjectStore;
import io.cairn.coordinator.CoordinatorClient;
import io.cairn.core.BucketRecord;
import io.cairn.core.topology.DiskCheck;
import io.cairn.core.topology.MemberIds;
import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.wire.StorageStats;
import io.cairn.server.admin.AdminServer;
import io.cairn.server.admin.AlertMetrics;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.control.LiveSettings;
import io.cairn.storage.ArchiveSweeper;
import io.cairn.storage.BucketArchives;
import io.cairn.storage.DiscoveryServed;
import io.cairn.storage.DoubledVerifier;
import io.cairn.storage.RemovedPrefixSweeper;
import io.cairn.storage.StorageAdmin;
import io.cairn.storage.StorageConfig;
import io.cairn.storage.StorageNode;
import io.cairn.storage.rocks.RocksStore;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.EventLoopGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToDoubleFunction;

/** A storage node with its admin endpoint, bootstrap task and coordinator watch. */
public final class StorageProcess implements AutoCloseable {
    private static final long BOOTSTRAP_CHECK_MS = 300;
    private static final long EXPIRY_SWEEP_MS = 1_000;
    /** Keys examined per sweep step; bounds the step's read work and the size of its delete entry. */
    private static final int EXPIRY_SCAN_KEYS = 2_000;
    /** Tombstones collected per log entry; bounds the entry and the apply pause. */
    private static final int COLLECT_BATCH = 10_000;

    private final NodeAddress self;
    private final ReplicasetSpec replicaset;
    /** Null while the constructor opens the folder (the admin port is up before it). */
    private volatile StorageNode node;
    private final CoordinatorClient coordinator;
    private final StorageAdmin replicasetAdmin;
    private final BootstrapTask bootstrap;
    private final ScheduledExecutorService timer;
    private final DoubledVerifier doubled;
    /** Null when the config turns the tier off ({@code archive.store: none}). */
    private final StorageArchiveTier archive;
    /** The config file, under the run-time settings ({@link LiveSettings}) this process follows. */
    private final ClusterConfig file;
    private final AdminServer admin;
    private volatile long epoch;
    private final LocalTopologies topologies;
    private volatile boolean restartCheckWaits;
    private volatile boolean newFolderWaits;
    private Map<String, Long> lastReported = Map.of();
    private long reportBackoffUntil;
    private long diskRecordBackoffUntil;
    private final long tombstoneRetentionMs;
    private final LongAdder tombstonesCollected = new LongAdder();
    private final LongAdder expiredDeleted = new LongAdder();
    private static final Logger log = LoggerFactory.getLogger(StorageProcess.class);

    public StorageProcess(ClusterConfig config, String nodeId) throws IOException {
        this(config, nodeId, null);
    }

    /** @param ioLoops event loops for the data-plane listener, shared with the rest of this JVM (a local cluster); null for a default */
    StorageProcess(ClusterConfig config, String nodeId, EventLoopGroup ioLoops) throws IOException {
        this.file = config;
        this.self = Nodes.storage(config, nodeId);
        this.replicaset = Nodes.replicasetOf(config, nodeId);
        this.coordinator = new CoordinatorClient(config.topology().coordinators());
        this.topologies = new LocalTopologies(config.nodeDir(nodeId));
        // up before the node, which may wait for a coordinator: /health says what it waits for meanwhile
        this.admin = new AdminServer(self.host(), self.adminPort(), this::info, () -> node != null && !"DOWN".equals(node.role()), config.security().adminAccess()).start();
        admin.waitingFor(this::waitingFor);
        try {
            StorageConfig storage = config.storage().forNode(config.nodeDir(nodeId));
            this.node = new StorageNode(self, replicaset, storage, ioLoops, this::replicasetHoldsData, true,
                    this::groupHasThisNode, disk -> notOnRecordAtStart(disk, storage));
        } catch (IOException | RuntimeException e) {
            admin.close();
            coordinator.close();
            throw e;
        }
        this.tombstoneRetentionMs = config.storage().tombstoneRetentionMs();
        this.replicasetAdmin = new StorageAdmin(replicaset, Duration.ofSeconds(5));
        this.bootstrap = new BootstrapTask(node, replicaset, coordinator, replicasetAdmin);
        this.doubled = new DoubledVerifier(replicaset.id(), node, config.storage().doubledVerifier(), System::currentTimeMillis);
        try {
            this.archive = config.archive().enabled()
                    ? new StorageArchiveTier(config.archive(), config.dataDir(), config.nodeDir(nodeId), node, replicasetAdmin) : null;
        } catch (RuntimeException e) {
            replicasetAdmin.close();
            admin.close();
            coordinator.close();
            node.close();
            throw e;
        }
        if (archive != null) doubled.confirmsRestoresOf(archive.archives()); // a rebuilt bucket restores only once confirmed its owner
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "cairn-storage-" + nodeId + "-timer");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Asked when this node's folder is new: whether its replicaset created its buckets already (then the
     * node was replaced or wiped and rejoins). Waits for a coordinator: voting at once without knowing
     * could help elect a leader that lacks acknowledged writes.
     */
    private boolean replicasetHoldsData() {
        newFolderWaits = true;
        try {
            return CoordinatorWait.answer(log, "storage node " + self.id() + " starts on a new folder and waits for a coordinator to learn whether replicaset "
                    + replicaset.id() + " holds data", () -> coordinator.get().bootstrapped(replicaset.id()), Optional::empty);
        } finally {
            newFolderWaits = false;
        }
    }

    /**
     * Asked before the member starts, of a folder that holds this node's data: why it is not what the cluster has on
     * record for the node (another disk, or an older copy of its own: a log that ends below what it had acknowledged),
     * or null. Such a folder is set aside and the node rejoins as a new member, a learner until caught up. One bounded
     * try each: when nothing answers (a whole replicaset's or cluster's restart), the check after the start
     * ({@link #checkRestart}) covers it, the member's vote withheld until it has caught up.
     */
    private String notOnRecordAtStart(String folderDisk, StorageConfig storage) {
        String otherDisk = otherDiskAtStart(folderDisk);
        return otherDisk != null ? otherDisk : olderCopyAtStart(storage);
    }

    private String olderCopyAtStart(StorageConfig storage) {
        long acknowledged;
        try {
            acknowledged = CompletableFuture.supplyAsync(() -> coordinator.acknowledged(self.id())).get(2, TimeUnit.SECONDS);
        } catch (Exception e) {
            log.debug("storage node {}: no coordinator answered for what it had acknowledged before the start: {}", self.id(), e.toString());
            return null;
        }
        try {
            return DiskCheck.olderCopy(StorageNode.logEndBeforeStart(storage), acknowledged);
        } catch (IOException e) {
            log.debug("storage node {}: its log could not be read before the start: {}", self.id(), e.toString());
            return null; // the start reads it again, and says what is wrong
        }
    }

    private String otherDiskAtStart(String folderDisk) {
        try (StorageAdmin group = new StorageAdmin(replicaset, Duration.ofSeconds(2))) {
            return DiskCheck.otherDisk(self.id(), folderDisk, Collections.singletonMap("replicaset " + replicaset.id(), group.recordedDisk(self.id())));
        } catch (RuntimeException e) {
            log.debug("storage node {}: replicaset {} did not answer for its disk record before the start: {}", self.id(), replicaset.id(), e.getMessage());
            return null;
        }
    }

    /**
     * Asked when this node rejoins on a new or damaged folder: whether its group has a member of this node (a wiped
     * member, not a node {@code cairn node add} just named), so that it comes back as a new member. True when no
     * leader answers: a new member is always safe.
     */
    private boolean groupHasThisNode() {
        try (StorageAdmin group = new StorageAdmin(replicaset, Duration.ofSeconds(2))) {
            return !group.members().membersOf(self.id()).isEmpty();
        } catch (RuntimeException e) {
            log.debug("storage node {}: replicaset {} did not answer for its members: {}", self.id(), replicaset.id(), e.getMessage());
            return true;
        }
    }

    /** What {@code /health} says this node waits for, or null. */
    private String waitingFor() {
        if (newFolderWaits) return "a coordinator to learn whether replicaset " + replicaset.id() + " holds data (this node's folder is new)";
        StorageNode n = node;
        return n != null && restartCheckWaits && n.rejoining() && !n.identity().rejoining()
                ? "a coordinator to check this node's log against what it acknowledged (it votes after that)" : null;
    }

    public StorageProcess start() throws IOException {
        // the disk goes on record as soon as the node caught up on it, so a restart right after is not taken for an
        // older disk put back (the membership loop records it too, within a second, should this call fail)
        node.onCaughtUp(() -> {
            try {
                coordinator.recordDisk(self.id(), node.identity().disk());
            } catch (RuntimeException e) {
                log.debug("storage node {}: disk not recorded at catch-up: {}", self.id(), e.toString());
            }
            timer.execute(this::recordDiskInReplicaset); // at once: a restart before it would find another disk on record
        });
        node.start();
        admin.route("/alerts", ex -> AdminServer.sendJson(ex, 200, alerts()));
        registerMetrics(admin.registry());
        if (archive != null) {
            admin.route("/buckets/", archive::handle);
            archive.registerMetrics(admin.registry());
            archive.start();
        }
        coordinator.watch(state -> {
            epoch = state.epoch();
            node.knowEpoch(epoch);
            topologies.record(state.topology());
            if (state.topology() != null) doubled.setTopology(state.topology());
            if (archive != null) archive.topology(state.topology());
        });
        doubled.start();
        every(0, BOOTSTRAP_CHECK_MS, () -> {
            if (!bootstrap.done()) bootstrap.runOnce();
        });
        // records in the folder when a rejoining node has caught up (and so votes again after a restart)
        if (node.rejoining()) {
            every(1_000, 1_000, node::rejoining);
            timer.execute(this::checkRestart);
        }
        every(1_000, 1_000, this::reportAcknowledged);
        every(1_000, 1_000, this::recordDiskInReplicaset);
        if (archive != null) every(1_000, 1_000, this::followArchiveRates);
        every(EXPIRY_SWEEP_MS, EXPIRY_SWEEP_MS, this::sweepExpired);
        // Checked a few times per retention window (at most once a minute): a tombstone lives at most ~1.25x the retention.
        long collectEveryMs = Math.min(60_000, Math.max(250, tombstoneRetentionMs / 4));
        every(collectEveryMs, collectEveryMs, this::collectTombstones);
        return this;
    }

    /**
     * Runs {@code task} on the timer after {@code firstMs}, then every {@code periodMs}, through whatever one run
     * throws: an exception would end a periodic task for good. A read that meets the database closed under it (a
     * snapshot being installed) is expected and tried again at the next run.
     */
    private void every(long firstMs, long periodMs, Runnable task) {
        timer.scheduleWithFixedDelay(() -> {
            try {
                task.run();
            } catch (RocksStore.StorageFailure e) {
                log.debug("storage node {}: a periodic task met the database closed: {}", self.id(), e.getMessage());
            } catch (RuntimeException e) {
                log.warn("storage node {}: a periodic task failed, tried again in {} ms: {}", self.id(), periodMs, e.toString());
            }
        }, firstMs, periodMs, TimeUnit.MILLISECONDS);
    }

    /**
     * A restarted node votes once its log reaches what its coordinator has on record as acknowledged
     * by it (else its folder is an older copy, and it catches up first). Its folder must also be the disk
     * on record ({@link DiskCheck}): the replicaset's own record is asked first, so an older disk put back
     * is refused even while no coordinator answers. Asked until decided, or until the node caught up with
     * its leader anyway.
     */
    private void checkRestart() {
        if (!node.rejoining() || node.identity().rejoining()) return;
        Map<String, String> records = new LinkedHashMap<>();
        records.put("replicaset " + replicaset.id(), groupDiskRecord());
        records.put("this folder's copy of replicaset " + replicaset.id() + "'s state", node.recordedDisk(self.id()));
        try {
            String otherDisk = DiskCheck.otherDisk(self.id(), node.identity().disk(), records);
            if (otherDisk == null) {
                long acknowledged = coordinator.acknowledged(self.id());
                records.put("the coordinator", coordinator.disks().get(self.id()));
                otherDisk = DiskCheck.otherDisk(self.id(), node.identity().disk(), records);
                boolean votes = node.confirmAcknowledged(acknowledged, otherDisk).get(10, TimeUnit.SECONDS);
                log.debug("storage node {}: log checked against the index {} it had acknowledged: {}", self.id(), acknowledged, votes ? "votes" : "rejoins");
            } else {
                node.confirmAcknowledged(Long.MAX_VALUE, otherDisk).get(10, TimeUnit.SECONDS);
            }
            if (restartCheckWaits) log.info("storage node {}: checked against its coordinator's and its replicaset's records", self.id());
        } catch (Exception e) {
            if (!restartCheckWaits) log.info("storage node {} waits for a coordinator to check its log against what it had acknowledged before it votes",
                    self.id());
            log.debug("storage node {}: restart check not done: {}", self.id(), e.getMessage());
            restartCheckWaits = true;
            if (!timer.isShutdown()) timer.schedule(this::checkRestart, 1, TimeUnit.SECONDS);
        }
    }

    /** The disk the replicaset's leader has on record for this node, or null when none is or no leader answered. */
    private String groupDiskRecord() {
        try {
            return replicasetAdmin.recordedDisk(self.id());
        } catch (RuntimeException e) {
            log.debug("storage node {}: replicaset {} did not answer for its disk record: {}", self.id(), replicaset.id(), e.getMessage());
            return null;
        }
    }

    /**
     * Records this node's disk in its replicaset's state once it has caught up on it (or voted at once), when its
     * own copy of that state names another or none: the record a later restart is checked against ({@link DiskCheck}).
     */
    private void recordDiskInReplicaset() {
        String disk = node.identity().disk();
        if (System.nanoTime() < diskRecordBackoffUntil || node.rejoining() || disk.equals(node.recordedDisk(self.id()))) return;
        try {
            replicasetAdmin.recordDisk(self.id(), disk);
            log.info("storage node {} runs on disk {}: recorded in replicaset {}'s state", self.id(), disk, replicaset.id());
        } catch (RuntimeException e) {
            log.debug("storage node {}: disk not recorded in replicaset {}: {}", self.id(), replicaset.id(), e.getMessage());
            diskRecordBackoffUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        }
    }

    /** On the leader, about once a second while it changes: the highest log index each member holds, to the coordinator. */
    private void reportAcknowledged() {
        if (!node.isLeader() || System.nanoTime() < reportBackoffUntil) return;
        try {
            // by node: a node back on a new disk has another member id (MemberIds); its highest index is what it holds
            Map<String, Long> held = new TreeMap<>();
            node.acknowledged().get(5, TimeUnit.SECONDS).forEach((member, index) -> held.merge(MemberIds.nodeOf(member), index, Math::max));
            if (held.isEmpty() || held.equals(lastReported)) return;
            coordinator.reportAcknowledged(replicaset.id(), held);
            lastReported = held;
        } catch (Exception e) {
            log.debug("acknowledged indexes of {} not reported: {}", replicaset.id(), e.toString());
            reportBackoffUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        }
    }

    /** The archive tier's throttle rates set at run time ({@code cairn config set archive.bytesPerSecond=...}), applied within about a second. */
    private void followArchiveRates() {
        try {
            StoreThrottle throttle = archive.store().throttle();
            StoreThrottle.Rates rates = LiveSettings.archiveRates(file, coordinator.settings());
            if (rates.equals(throttle.rates())) return;
            throttle.setRates(rates);
            log.info("storage node {}: archive store limited to {} calls/s and {} bytes/s (0: no limit)", self.id(), rates.callsPerSecond(), rates.bytesPerSecond());
        } catch (RuntimeException e) {
            log.debug("storage node {}: run-time archive rates not read: {}", self.id(), e.toString());
        }
    }

    /** On the leader: collects, through the log, the tombstones older than the retention time (design 001). */
    private void collectTombstones() {
        if (!node.isLeader()) return;
        try {
            var expired = node.expiredTombstones(tombstoneRetentionMs, COLLECT_BATCH);
            if (expired.isEmpty()) return;
            long below = expired.get(expired.size() - 1).bsn() + 1;
            long collected = replicasetAdmin.collectTombstones(below, tombstoneRetentionMs, expired.stream().mapToInt(BucketRecord::id).toArray());
            tombstonesCollected.add(collected);
            log.info("replicaset {} collected {} tombstones; discovery horizon now BSN {}", replicaset.id(), collected, node.horizonBsn());
        } catch (Exception e) {
            log.debug("tombstone collection of {} skipped: {}", replicaset.id(), e.toString());
        }
    }

    /** On the leader: deletes, through the log, the expired keys of the next slice of data. */
    private void sweepExpired() {
        if (!node.isLeader()) return;
        try {
            var expired = node.expiredKeys(EXPIRY_SCAN_KEYS);
            if (expired.isEmpty()) return;
            expiredDeleted.add(replicasetAdmin.deleteExpired(expired));
        } catch (Exception e) {
            log.debug("expiry sweep of {} skipped: {}", replicaset.id(), e.toString());
        }
    }

    public List<String> alerts() {
        List<String> alerts = new ArrayList<>();
        if (bootstrap.refusal() != null) alerts.add("BOOTSTRAP_REFUSED: " + bootstrap.refusal());
        if (node.identity().setAside()) {
            alerts.add("REPLACED_DISK: " + self.id() + " " + node.identity().reason() + "; it neither votes nor serves: restart it, its folder is"
                    + " then set aside and it rejoins as a new member (disk " + node.identity().disk() + ")");
        } else if (node.rejoining() && node.identity().rejoining()) {
            alerts.add("REPLACED_DISK: " + self.id() + " " + node.identity().reason() + "; it neither votes nor serves reads until it has caught up"
                    + " with its leader (disk " + node.identity().disk() + ")");
        }
        String doubledAlert = DoubledAlerts.storage(replicaset.id(), node.bucketRecords());
        if (doubledAlert != null) alerts.add(doubledAlert);
        if (archive != null) archive.addAlerts(alerts);
        return alerts;
    }

    /** Stops as planned: leadership handed over first ({@link StorageNode#handOverLeadership()}), then {@link #close()}. */
    public void stop() throws IOException {
        node.handOverLeadership();
        close();
    }

    public StorageNode node() {
        return node;
    }

    /** This node's archive tier (null when {@code archive.store: none}). */
    public BucketArchives archives() {
        return archive == null ? null : archive.archives();
    }

    /** This process's throttled object store (null when {@code archive.store: none}). */
    public ThrottledObjectStore archiveStore() {
        return archive == null ? null : archive.store();
    }

    /** This node's archive sweeper's counters (null when the tier or sweeping is off). */
    public ArchiveSweeper.Counts archiveSweepCounts() {
        return archive == null ? null : archive.sweepCounts();
    }

    public RemovedPrefixSweeper.Counts archiveRemovedPrefixSweepCounts() {
        return archive == null ? null : archive.removedPrefixSweepCounts();
    }

    private void registerMetrics(MeterRegistry r) {
        AlertMetrics.register(r, this::alerts, "BOOTSTRAP_REFUSED", "REPLACED_DISK", "DOUBLED_BUCKETS");
        String rs = replicaset.id();
        Gauge.builder("cairn_storage_leader", node, n -> n.isLeader() ? 1 : 0).tag("replicaset", rs)
                .description("1 when this node is its replicaset's Raft leader").register(r);
        discoveryCounter(r, "requests", "discovery requests answered", DiscoveryServed::requests);
        discoveryCounter(r, "records", "bucket records sent to routers", DiscoveryServed::records);
        discoveryCounter(r, "resyncs", "answers that told a router to resync fully", DiscoveryServed::resyncs);
        discoveryCounter(r, "bytes", "bytes of discovery answers sent to routers", DiscoveryServed::bytes);
        Gauge.builder("cairn_storage_discovery_horizon_bsn", node, StorageNode::horizonBsn).tag("replicaset", rs)
                .description("tombstones up to this BSN are collected; router cursors below it resync (0: none collected yet)").register(r);
        FunctionCounter.builder("cairn_storage_tombstones_collected", tombstonesCollected,
                        LongAdder::sum)
                .tag("replicaset", rs).description("tombstones this node collected while leader").register(r);
        Gauge.builder("cairn_storage_keys", node, n -> n.localStats().keyCount()).tag("replicaset", rs)
                .description("keys in this node's copy, expired ones included until deleted").register(r);
        Gauge.builder("cairn_storage_buckets_owned", node, n -> n.localStats().ownedBuckets()).tag("replicaset", rs)
                .description("buckets this replicaset owns (ACTIVE, PINNED or SENDING)").register(r);
        Gauge.builder("cairn_storage_buckets_held", node, n -> n.localStats().heldBuckets()).tag("replicaset", rs)
                .description("buckets whose data or move is still needed here; the replicaset may be removed only at 0").register(r);
        Gauge.builder("cairn_storage_applied_index", node, n -> n.localStats().appliedIndex()).tag("replicaset", rs)
                .description("last Raft log index applied to RocksDB").register(r);
        Gauge.builder("cairn_storage_bsn", node, n -> n.localStats().lastBsn()).tag("replicaset", rs)
                .description("last bucket sequence number").register(r);
        Gauge.builder("cairn_storage_raft_term", node, StorageNode::term).tag("replicaset", rs).description("this member's current Raft term").register(r);
        FunctionCounter.builder("cairn_storage_stale_epoch_refusals", node, StorageNode::staleEpochRefusals)
                .tag("replicaset", rs).description("data-plane requests refused because they were sent at an older topology epoch").register(r);
        FunctionCounter.builder("cairn_storage_dataplane_paused", node, StorageNode::dataPlaneReadingPaused)
                .tag("replicaset", rs).description("times a data-plane connection was not read from while its answers passed the high-water mark (a router reading slowly)")
                .register(r);
        Gauge.builder("cairn_storage_raft_unsent_bytes", node, n -> n.raftSendBacklog().unsentBytes()).tag("replicaset", rs)
                .description("Raft messages written to peers' connections and not yet taken by their sockets (a follower not reading holds at most 32 MB and one frame)")
                .register(r);
        FunctionCounter.builder("cairn_storage_raft_dropped_backed_up", node, n -> n.raftSendBacklog().droppedBackedUp())
                .tag("replicaset", rs).description("Raft messages dropped because their peer's connection held 32 MB unsent; Raft sends them again once it reads")
                .register(r);
        Gauge.builder("cairn_storage_rejoining", node, n -> n.rejoining() ? 1 : 0).tag("replicaset", rs)
                .description("1 while this node is back on a new or damaged folder and has not caught up (REPLACED_DISK alert): it neither votes nor serves")
                .register(r);
        Gauge.builder("cairn_storage_doubled_buckets", node, n -> DoubledAlerts.contained(n.bucketRecords()).size()).tag("replicaset", rs)
                .description("contained doubled copies held here (READONLY; DOUBLED_BUCKETS alert while > 0)").register(r);
        Gauge.builder("cairn_storage_quarantined_buckets", node, n -> DoubledAlerts.quarantined(n.bucketRecords()).size()).tag("replicaset", rs)
                .description("quarantined copies of resolved doubled buckets whose data is kept").register(r);
        FunctionCounter.builder("cairn_storage_doubled_checked", doubled, d -> d.counters().bucketsChecked()).tag("replicaset", rs)
                .description("buckets this node checked for doubles while leader").register(r);
        FunctionCounter.builder("cairn_storage_doubled_contained", doubled, d -> d.counters().copiesContained()).tag("replicaset", rs)
                .description("copies this node contained as doubled while leader").register(r);
        FunctionCounter.builder("cairn_storage_expired_deleted", expiredDeleted, LongAdder::sum)
                .tag("replicaset", rs).description("expired keys deleted by this node's sweeper while leader").register(r);
    }

    private void discoveryCounter(MeterRegistry r, String name, String help, ToDoubleFunction<DiscoveryServed> count) {
        FunctionCounter.builder("cairn_storage_discovery_" + name, node, n -> count.applyAsDouble(n.discoveryServed()))
                .tag("replicaset", replicaset.id()).description(help).register(r);
    }

    private Map<String, Object> info() {
        Map<String, Object> info = new LinkedHashMap<>();
        info.put("role", "storage");
        info.put("node", self.id());
        info.put("replicaset", replicaset.id());
        if (node == null) { // still opening its folder (waiting for a coordinator, or replaying its log)
            info.put("raftRole", "STARTING");
            info.put("waitingFor", waitingFor());
            return info;
        }
        StorageStats s = node.localStats();
        info.put("raftRole", node.role());
        info.put("term", node.term());
        info.put("disk", node.identity().disk());
        info.put("raftMember", node.identity().member());
        if (node.identity().setAside()) info.put("setAside", true);
        info.put("rejoining", node.rejoining());
        info.put("epoch", epoch);
        info.put("keys", s.keyCount());
        info.put("bucketsOwned", s.ownedBuckets());
        info.put("bucketsHeld", s.heldBuckets());
        info.put("lastBsn", s.lastBsn());
        info.put("horizonBsn", node.horizonBsn());
        info.put("tombstoneRetentionMs", tombstoneRetentionMs);
        info.put("appliedIndex", s.appliedIndex());
        info.put("incarnation", s.incarnation());
        info.put("bootstrapped", s.bootstrapped());
        if (bootstrap.refusal() != null) info.put("bootstrapRefused", bootstrap.refusal());
        info.put("doubledBuckets", DoubledAlerts.contained(node.bucketRecords()));
        info.put("alerts", alerts());
        info.put("quarantinedBuckets", DoubledAlerts.quarantined(node.bucketRecords()));
        DoubledVerifier.Checks c = doubled.counters();
        info.put("doubledChecks", Map.of("bucketsChecked", c.bucketsChecked(), "copiesContained", c.copiesContained()));
        if (archive != null) info.put("archive", archive.info());
        return info;
    }

    @Override
    public void close() throws IOException {
        timer.shutdownNow();
        // a task still running reads the node's RocksDB (the restart check, the disk record): the node closes after it ends
        try {
            if (!timer.awaitTermination(10, TimeUnit.SECONDS)) log.warn("storage node {}: a timer task did not end within 10 s of the stop", self.id());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (archive != null) archive.close();
        doubled.close();
        replicasetAdmin.close();
        coordinator.close();
        admin.close();
        node.close();
    }
}
