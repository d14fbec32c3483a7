package io.cairn.server.control;

import io.cairn.coordinator.CoordinatorClient;
import io.cairn.core.CairnException;
import io.cairn.core.topology.MemberIds;
import io.cairn.core.topology.MemberPlanner;
import io.cairn.core.topology.MemberPlanner.NodeState;
import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.topology.Topology;
import io.cairn.core.wire.MemberChange;
import io.cairn.server.admin.AdminClient;
import io.cairn.server.admin.AdminHttps;
import io.cairn.storage.StorageAdmin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Runs on the coordinator's leader: once a second, for each replicaset, makes the one Raft membership
 * change {@link MemberPlanner} asks for, so that each group's members follow the topology (issue 21).
 * {@code cairn node add} and {@code remove} only change the topology and follow the progress; a
 * command interrupted anywhere, or a coordinator that loses its leadership, leaves nothing half done
 * that the next leader does not finish.
 *
 * <p>It also records the disk each caught-up node runs on ({@code CoordinatorClient.recordDisk}): a node
 * restarted later on a folder of another disk (an older one put back) catches up before it votes.
 *
 * <p>The topology is read from the coordinator group (linearizably) <em>after</em> the membership, so a
 * change never acts on a topology older than the membership it saw: a node removed from the topology
 * and then from the group is never added back by a round that started before.
 */
public final class MemberReconciler implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MemberReconciler.class);
    private static final long ROUND_MS = 1_000;
    /** The next round's delay while a change is under way (one made, or a learner catching up): steps follow each other quickly. */
    private static final long BUSY_ROUND_MS = 200;
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);

    private final BooleanSupplier isLeader;
    private final CoordinatorClient coordinator;
    private final ScheduledExecutorService driver;
    /** Per replicaset: what the last round did or waits for (the coordinator's /info shows it). */
    private final Map<String, String> status = new ConcurrentHashMap<>();
    private final Map<String, StorageAdmin> admins = new HashMap<>();
    /** Set by a round that made a change or waits for a learner (driver thread only). */
    private boolean busy;
    /** Per replicaset, every node it named since this coordinator leads (members the topology dropped are still reached). */
    private final Map<String, Map<String, NodeAddress>> known = new HashMap<>();
    private final Map<String, ReplicasetSpec> adminSpecs = new HashMap<>();

    public MemberReconciler(BooleanSupplier isLeader, CoordinatorClient coordinator) {
        this.isLeader = isLeader;
        this.coordinator = coordinator;
        this.driver = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "cairn-members");
            t.setDaemon(true);
            return t;
        });
    }

    public MemberReconciler start() {
        driver.schedule(this::roundAndNext, ROUND_MS, TimeUnit.MILLISECONDS);
        return this;
    }

    /** Replicaset id to what its membership waits for or last did; empty when every group matches the topology. */
    public Map<String, String> status() {
        return new TreeMap<>(status);
    }

    private void roundAndNext() {
        busy = false;
        round();
        if (!driver.isShutdown()) driver.schedule(this::roundAndNext, busy ? BUSY_ROUND_MS : ROUND_MS, TimeUnit.MILLISECONDS);
    }

    private void round() {
        try {
            if (!isLeader.getAsBoolean()) {
                status.clear();
                known.clear();
                return;
            }
            if (known.isEmpty()) {
                // a new leader learns the addresses of members the topology dropped before it led
                for (Topology past : coordinator.history()) remember(past);
            }
            Topology seen = coordinator.get().topology();
            if (seen == null) return;
            remember(seen);
            Map<String, MemberChange.View> memberships = new LinkedHashMap<>();
            for (ReplicasetSpec rs : seen.replicasets()) {
                MemberChange.View members = membership(rs);
                if (members != null) memberships.put(rs.id(), members);
            }
            // membership first, then the topology (see the class comment): one read for every replicaset
            Topology wanted = coordinator.get().topology();
            Map<String, String> recorded = coordinator.disks();
            memberships.forEach((rsId, members) -> wanted.replicaset(rsId).ifPresent(rs -> reconcile(rs, members, recorded)));
            status.keySet().removeIf(id -> wanted.replicaset(id).isEmpty());
        } catch (RuntimeException e) {
            log.debug("membership round failed: {}", e.toString());
        }
    }

    private void remember(Topology t) {
        for (ReplicasetSpec rs : t.replicasets()) {
            Map<String, NodeAddress> nodes = known.computeIfAbsent(rs.id(), k -> new LinkedHashMap<>());
            for (NodeAddress n : rs.nodes()) nodes.put(n.id(), n);
        }
    }

    /** The replicaset's membership from its leader; null (and the reason in the status) when none answers. */
    private MemberChange.View membership(ReplicasetSpec current) {
        try {
            return admin(current.id()).members();
        } catch (CairnException e) {
            // no leader for a moment (start, election, engine without membership changes): not an event for an operator
            status.put(current.id(), "no membership from replicaset " + current.id() + ": " + e.getMessage());
            log.debug("replicaset {}: no membership: {}", current.id(), e.getMessage());
            return null;
        }
    }

    private void reconcile(ReplicasetSpec wanted, MemberChange.View members, Map<String, String> recordedDisks) {
        String rsId = wanted.id();
        Map<String, NodeAddress> addresses = known.computeIfAbsent(rsId, k -> new LinkedHashMap<>());
        StorageAdmin admin = admin(rsId);
        addresses.keySet().removeIf(id -> members.membersOf(id).isEmpty() && wanted.nodes().stream().noneMatch(n -> n.id().equals(id)));
        Map<String, NodeState> states = new HashMap<>();
        for (NodeAddress n : wanted.nodes()) {
            Map<String, Object> info = info(n);
            states.put(n.id(), state(info));
            recordDisk(n.id(), info, states.get(n.id()), recordedDisks);
        }
        // voters the topology dropped: one of them may lead
        for (String member : members.voters().keySet()) {
            String id = MemberIds.nodeOf(member);
            if (!states.containsKey(id) && addresses.containsKey(id)) states.put(id, probe(addresses.get(id)));
        }
        MemberPlanner.Step step = MemberPlanner.next(wanted, members, MemberPlanner.of(states));
        if (step.change() == null) {
            if (step.waiting() == null) status.remove(rsId);
            else report(rsId, step.waiting(), false);
            if (step.waiting() != null && !members.learners().isEmpty()) busy = true;
            return;
        }
        MemberChange c = step.change();
        try {
            if (c.op() == MemberChange.Op.ADD_LEARNER) {
                // a fresh snapshot first: the learner installs it instead of replaying the log since the last one
                admin.changeMembers(MemberChange.snapshot());
            }
            MemberChange.View after = admin.changeMembers(c);
            report(rsId, describe(c) + ": " + after, true);
            busy = true;
            if (c.op() == MemberChange.Op.REMOVE && after.membersOf(MemberIds.nodeOf(c.member())).isEmpty()
                    && wanted.nodes().stream().noneMatch(n -> n.id().equals(MemberIds.nodeOf(c.member())))) {
                addresses.remove(MemberIds.nodeOf(c.member()));
            }
        } catch (CairnException e) {
            MemberChange.View now = membership(wanted);
            if (now != null && now.shows(c)) {
                // committed though its reply was lost (a leader change, a timeout): the change happened, say so once
                report(rsId, describe(c) + ": " + now, true);
                busy = true;
            } else {
                report(rsId, describe(c) + " failed (retried next round): " + e.getMessage(), false);
            }
        }
    }

    private static String describe(MemberChange c) {
        return switch (c.op()) {
            case ADD_LEARNER -> c.member() + " joined as a learner";
            case PROMOTE -> c.member() + " caught up and votes";
            case REMOVE -> c.member() + " left the group";
            case LEAD -> "leadership handed to " + c.member() + " before a voter leaves";
            default -> c.op() + " " + c.member();
        };
    }

    /** Records the line and logs it once: every change, and each new reason to wait. */
    private void report(String rsId, String line, boolean change) {
        String before = status.put(rsId, line);
        if (change) log.info("replicaset {}: {}", rsId, line);
        else if (!line.equals(before)) log.info("replicaset {} membership waits: {}", rsId, line);
    }

    /**
     * Records the disk a caught-up member runs on when the record names another (a replaced disk, or the
     * first record): a node restarted later on a folder of another disk then catches up before it votes.
     */
    private void recordDisk(String nodeId, Map<String, Object> info, NodeState state, Map<String, String> recorded) {
        if (info == null || !state.up() || state.rejoining() || !(info.get("disk") instanceof String disk) || disk.isEmpty()) return;
        if (disk.equals(recorded.get(nodeId))) return;
        try {
            coordinator.recordDisk(nodeId, disk);
            log.info("storage node {} runs on disk {} (recorded; was {})", nodeId, disk, recorded.getOrDefault(nodeId, "none"));
        } catch (CairnException e) {
            log.debug("disk of {} not recorded: {}", nodeId, e.getMessage());
        }
    }

    /** A node as its admin port describes it; DOWN when it does not answer or its Raft member has not started. */
    public static NodeState probe(NodeAddress n) {
        return state(info(n));
    }

    private static Map<String, Object> info(NodeAddress n) {
        return AdminClient.getJson(AdminHttps.base(n.host(), n.adminPort()) + "/info", CALL_TIMEOUT);
    }

    private static NodeState state(Map<String, Object> i) {
        // a node on a folder that is no longer its member in the group waits for a restart (its alert says so)
        if (i == null || "STARTING".equals(i.get("raftRole")) || Boolean.TRUE.equals(i.get("setAside"))) return NodeState.DOWN;
        return new NodeState(true, !Boolean.FALSE.equals(i.get("rejoining")), "LEADER".equals(i.get("raftRole")),
                i.get("appliedIndex") instanceof Number a ? a.longValue() : 0, i.get("raftMember") instanceof String m ? m : null);
    }

    /** The data-plane client of a replicaset: its topology's nodes and the members the topology dropped (one may lead). */
    private StorageAdmin admin(String rsId) {
        Map<String, NodeAddress> addresses = known.computeIfAbsent(rsId, k -> new LinkedHashMap<>());
        return admin(new ReplicasetSpec(rsId, 1, new ArrayList<>(addresses.values())));
    }

    /** One data-plane client per replicaset, built anew when its nodes change. */
    private StorageAdmin admin(ReplicasetSpec rs) {
        if (!rs.equals(adminSpecs.get(rs.id()))) {
            StorageAdmin old = admins.put(rs.id(), new StorageAdmin(rs, CALL_TIMEOUT));
            adminSpecs.put(rs.id(), rs);
            if (old != null) old.close();
        }
        return admins.get(rs.id());
    }

    @Override
    public void close() {
        driver.shutdownNow();
        try {
            driver.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        admins.values().forEach(StorageAdmin::close);
    }
}
