package io.cairn.server.chaos;

import io.cairn.coordinator.CoordinatorClient;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.server.Cli;
import io.cairn.server.ProcessCluster;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.awaitility.Awaitility.await;

/**
 * The faults of the chaos test, injected one at a time into a {@link ProcessCluster} of two
 * replicasets of three storage processes, a coordinator and a router, and healed before the next
 * one: every process is killed with SIGKILL through its own {@link Process} handle (never by
 * name), down for a random 0.5 to 3 s, and started again on its folder (or on no folder, or on an
 * old copy of it). Each fault says whether it landed as meant ({@link Injected#confirmed}): a wiped
 * or restored member must announce {@code REPLACED_DISK}, a move must have been queued.
 */
final class Faults {
    enum Kind {
        /** SIGKILL of a replicaset's Raft leader. */
        KILL_LEADER,
        /** SIGKILL of a follower. */
        KILL_FOLLOWER,
        /** SIGKILL of the router the clients talk to. */
        KILL_ROUTER,
        /** SIGKILL of the coordinator (the only one). */
        KILL_COORDINATOR,
        /** A follower killed and started on an empty folder: it rejoins as a non-voter and catches up. */
        WIPE_FOLLOWER,
        /** A follower killed, its folder copied, restarted; later killed again and started on the old copy. */
        RESTORE_OLD_COPY,
        /** A bucket of the workload moved ({@code cairn bucket move}), its source leader killed right after. */
        BUCKET_MOVE,
        /** A replicaset's weight changed ({@code cairn topology set-weight}), a storage member killed while buckets move. */
        TOPOLOGY_CHANGE,
        /** A leader cut off from every other process (network namespaces) for 3 to 8 s: longer than the leader timeout. */
        ISOLATE_LEADER,
        /** A follower cut off from every other process for 3 to 8 s. */
        ISOLATE_FOLLOWER;

        /** Kinds that need a network namespace per storage node. */
        boolean partitions() {
            return this == ISOLATE_LEADER || this == ISOLATE_FOLLOWER;
        }
    }

    /**
     * A fault as injected: the replicasets whose writes it may stop (all, for the router and the
     * coordinator), when it took effect (the killed process gone, the link down) and when the
     * cluster was healthy again.
     */
    record Injected(Kind kind, String detail, List<String> replicasets, long startNs, long healedNs, boolean confirmed) {}

    private static final Duration HEAL = Duration.ofSeconds(180);
    private static final Duration CAUGHT_UP = Duration.ofSeconds(60);

    private final ProcessCluster cluster;
    private final Random random;
    private final Supplier<Long> progress;
    private final List<Integer> workloadBuckets;
    private final Path backups;
    private final NetworkNamespaces network;
    private int weightChanges;

    /**
     * @param progress        requests answered by the workload so far (a restore waits for writes after its copy)
     * @param workloadBuckets buckets the workload's keys live in (moves pick one of them)
     * @param network         the storage nodes' namespaces, or null when partitions are not injected
     */
    Faults(ProcessCluster cluster, Random random, Supplier<Long> progress, List<Integer> workloadBuckets, Path backups,
           NetworkNamespaces network) {
        this.network = network;
        this.cluster = cluster;
        this.random = random;
        this.progress = progress;
        this.workloadBuckets = workloadBuckets;
        this.backups = backups;
    }

    Injected inject(Kind kind) throws Exception {
        return switch (kind) {
            case KILL_LEADER -> killAndRestart(kind, cluster.leaderOf(randomReplicaset()));
            case KILL_FOLLOWER -> killAndRestart(kind, randomFollower(randomReplicaset()));
            case KILL_ROUTER -> killAndRestart(kind, cluster.config().topology().routers().get(0).id());
            case KILL_COORDINATOR -> killAndRestart(kind, cluster.config().topology().coordinators().get(0).id());
            case WIPE_FOLLOWER -> wipeFollower();
            case RESTORE_OLD_COPY -> restoreOldCopy();
            case BUCKET_MOVE -> moveBucket();
            case TOPOLOGY_CHANGE -> changeWeight();
            case ISOLATE_LEADER -> isolate(kind, cluster.leaderOf(randomReplicaset()));
            case ISOLATE_FOLLOWER -> isolate(kind, randomFollower(randomReplicaset()));
        };
    }

    private Injected isolate(Kind kind, String node) throws Exception {
        if (network == null || !network.hosts(node)) throw new IllegalStateException(kind + " needs network namespaces");
        Map<String, Object> before = cluster.info(node);
        String role = before == null ? "?" : String.valueOf(before.get("raftRole"));
        network.isolate(node);
        long start = System.nanoTime();
        long lengthMs = 3_000 + random.nextInt(5_000);
        try {
            Thread.sleep(lengthMs); // the partition's length, drawn from the seed
        } finally {
            network.heal(node);
        }
        long healedNs = System.nanoTime();
        String rs = replicasetOf(node);
        long target = cluster.members(rs).stream().filter(id -> !id.equals(node)).mapToLong(this::appliedIndex).max().orElse(0);
        String caughtUp;
        try {
            await().atMost(CAUGHT_UP).pollInterval(Duration.ofMillis(20)).ignoreExceptions().until(() -> appliedIndex(node) >= target);
            caughtUp = "applied what the others had at the heal " + (System.nanoTime() - healedNs) / 1_000_000 + " ms after it";
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            caughtUp = "had not applied what the others had at the heal " + CAUGHT_UP.toMillis() + " ms after it";
        }
        return healed(kind, node + " (" + role + ") cut off for " + lengthMs + " ms; " + caughtUp, node, start, true);
    }


    // ---- the faults -----------------------------------------------------------------------------

    private Injected killAndRestart(Kind kind, String node) throws Exception {
        cluster.kill(node);
        long start = System.nanoTime();
        downtime();
        cluster.start(node);
        return healed(kind, "SIGKILL of " + node, node, start, true);
    }

    private Injected wipeFollower() throws Exception {
        String node = randomFollower(randomReplicaset());
        long alertsBefore = replacedDiskLines(node);
        cluster.kill(node);
        long start = System.nanoTime();
        deleteTree(cluster.config().nodeDir(node));
        downtime();
        cluster.start(node);
        boolean rejoined = awaitReplacedDisk(node, alertsBefore);
        return healed(Kind.WIPE_FOLLOWER, "SIGKILL of " + node + ", its folder deleted", node, start, rejoined);
    }

    /**
     * The copy is taken while the member is down (as a backup of a stopped node is), and restored
     * only once the coordinator's record of what the member acknowledged has passed the copy's end
     * by 100 entries: writes acknowledged within the last second before a copy are not told apart
     * (docs/operations.md, known gaps), so a fresher copy would test nothing. The node's log then ends
     * below what it is on record as having acknowledged.
     */
    private Injected restoreOldCopy() throws Exception {
        String rs = randomReplicaset();
        String node = randomFollower(rs);
        long copyIndex = appliedIndex(node);
        cluster.kill(node);
        Path copy = backups.resolve(node + "-" + System.nanoTime());
        copyTree(cluster.config().nodeDir(node), copy);
        cluster.start(node);
        awaitHealthy();
        long answered = progress.get();
        try (CoordinatorClient coordinator = new CoordinatorClient(cluster.config().topology().coordinators())) {
            await(node + " acknowledged 100 entries past its copy").atMost(HEAL).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                    .until(() -> coordinator.acknowledged(node) > copyIndex + 100 && progress.get() > answered + 100);
        }
        long alertsBefore = replacedDiskLines(node);
        cluster.kill(node);
        long start = System.nanoTime();
        deleteTree(cluster.config().nodeDir(node));
        copyTree(copy, cluster.config().nodeDir(node));
        downtime();
        cluster.start(node);
        Injected healed = healed(Kind.RESTORE_OLD_COPY, node + " restarted on a copy of its folder at applied index " + copyIndex, node, start, true);
        deleteTree(copy);
        // Either outcome is right: the node follows its leader while the coordinator's answer is on its way,
        // and a snapshot from the leader may bring its log past the record before the check.
        String detected = replacedDiskLines(node) > alertsBefore ? "announced REPLACED_DISK" : "caught up before its check (no REPLACED_DISK)";
        return new Injected(healed.kind(), healed.detail() + "; " + detected, healed.replicasets(), healed.startNs(), healed.healedNs(), true);
    }

    private Injected moveBucket() throws Exception {
        int bucket = workloadBuckets.get(random.nextInt(workloadBuckets.size()));
        List<String> owners = Ownership.writableOwners(cluster.config(), List.of(bucket)).get(bucket);
        if (owners.size() != 1) throw new AssertionError("bucket " + bucket + " writable on " + owners + " before its move");
        String source = owners.get(0);
        String destination = replicasets().stream().filter(r -> !r.equals(source)).findFirst().orElseThrow();
        Cli move = Cli.run("bucket", "move", Integer.toString(bucket), "--to", destination, "--config", cluster.configFile());
        String victim = cluster.leaderOf(source);
        cluster.kill(victim);
        long start = System.nanoTime();
        downtime();
        cluster.start(victim);
        return healed(Kind.BUCKET_MOVE, "bucket " + bucket + " " + source + " -> " + destination + ", then SIGKILL of " + victim
                + " (leader of the source)", victim, start, move.exitCode() == 0);
    }

    private Injected changeWeight() throws Exception {
        String rs = replicasets().get(replicasets().size() - 1);
        int weight = ++weightChanges % 2 == 1 ? 2 : 1;
        Cli change = Cli.run("topology", "set-weight", "--config", cluster.configFile(), rs, Integer.toString(weight));
        boolean moving = false;
        try {
            await("buckets moving after the weight change").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50)).until(() -> {
                Map<String, Object> p = cluster.rebalancer();
                return p != null && p.get("inFlight") instanceof Number n && n.intValue() > 0;
            });
            moving = true;
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            // Reported as not confirmed: the kill below then lands after the moves.
        }
        String victimRs = randomReplicaset();
        List<String> members = cluster.members(victimRs);
        String victim = members.get(random.nextInt(members.size()));
        cluster.kill(victim);
        long start = System.nanoTime();
        downtime();
        cluster.start(victim);
        return healed(Kind.TOPOLOGY_CHANGE, "weight of " + rs + " set to " + weight + (moving ? " (buckets in flight)" : " (no move seen)")
                + ", then SIGKILL of " + victim, victim, start, change.exitCode() == 0 && moving);
    }

    // ---- healing --------------------------------------------------------------------------------

    private Injected healed(Kind kind, String detail, String victim, long startNs, boolean confirmed) {
        awaitHealthy();
        List<String> hit = cluster.config().topology().storageNode(victim).isPresent()
                ? List.of(replicasetOf(victim)) : replicasets();
        return new Injected(kind, detail, hit, startNs, System.nanoTime(), confirmed);
    }

    /**
     * Every process of the config runs; every storage member answers, none is rejoining, each
     * replicaset has exactly one member that says it leads; the rebalancer has no move in flight and is balanced; a write
     * through the router is acknowledged.
     */
    void awaitHealthy() {
        await("the cluster healthy again").atMost(HEAL).pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(() -> {
            for (ReplicasetSpec rs : cluster.config().topology().replicasets()) {
                int leaders = 0;
                for (String id : cluster.members(rs.id())) {
                    if (!cluster.isRunning(id)) return false;
                    Map<String, Object> info = cluster.info(id);
                    if (info == null || !Boolean.FALSE.equals(info.get("rejoining"))) return false;
                    if ("LEADER".equals(info.get("raftRole"))) leaders++;
                }
                if (leaders != 1) return false; // none yet, or a cut-off leader that has not yet heard of the new term
            }
            Map<String, Object> p = cluster.rebalancer();
            if (p == null || !(p.get("inFlight") instanceof Number n) || n.intValue() != 0 || !Boolean.TRUE.equals(p.get("balanced"))) return false;
            try (Jedis jedis = new Jedis(cluster.config().topology().routers().get(0).host(), cluster.respPort(), 30_000)) {
                return "OK".equals(jedis.set("chaos-probe", "x"));
            }
        });
    }

    // ---- helpers --------------------------------------------------------------------------------

    private void downtime() throws InterruptedException {
        Thread.sleep(500 + random.nextInt(2_500)); // the fault's length, drawn from the seed; no correctness waits on it
    }

    private List<String> replicasets() {
        return cluster.config().topology().replicasets().stream().map(ReplicasetSpec::id).toList();
    }

    private String randomReplicaset() {
        List<String> all = replicasets();
        return all.get(random.nextInt(all.size()));
    }

    private String randomFollower(String rs) {
        String leader = cluster.leaderOf(rs);
        List<String> followers = new ArrayList<>(cluster.members(rs));
        followers.remove(leader);
        return followers.get(random.nextInt(followers.size()));
    }

    private String replicasetOf(String node) {
        for (ReplicasetSpec rs : cluster.config().topology().replicasets()) {
            if (rs.nodes().stream().anyMatch(n -> n.id().equals(node))) return rs.id();
        }
        throw new IllegalArgumentException(node);
    }

    private long appliedIndex(String node) {
        Map<String, Object> info = cluster.info(node);
        return info != null && info.get("appliedIndex") instanceof Number n ? n.longValue() : 0;
    }

    /** Lines of a node's log that announce a replaced disk (a wiped folder, or an older copy of its own). */
    private long replacedDiskLines(String node) throws IOException {
        Path log = cluster.logOf(node);
        if (!Files.exists(log)) return 0;
        try (Stream<String> lines = Files.lines(log)) {
            return lines.filter(l -> l.contains("REPLACED_DISK")).count();
        }
    }

    /** Whether the node announced {@code REPLACED_DISK} after its restart (waits, bounded). */
    private boolean awaitReplacedDisk(String node, long linesBefore) {
        try {
            await(node + " announces REPLACED_DISK").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> replacedDiskLines(node) > linesBefore);
            return true;
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            return false;
        }
    }

    static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Path target = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) Files.createDirectories(target);
                else Files.copy(f, target);
            }
        }
    }

    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) return;
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) Files.delete(f);
        }
    }
}
