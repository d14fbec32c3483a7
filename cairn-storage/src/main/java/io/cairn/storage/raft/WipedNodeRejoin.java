package io.cairn.storage.raft;

import io.cairn.client.RatisTls;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos.CommitInfoProto;
import org.apache.ratis.protocol.GroupInfoReply;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * Brings back a member whose data folder was wiped (or replaced by an empty one), or replaced by
 * an older copy of itself (a restored backup of that member).
 *
 * <p>Raft assumes a member never loses entries it acknowledged. A Ratis leader remembers the
 * member's old match index and does not resend the entries below it: a heartbeat that the member
 * rejects moves the leader's next index back to that match index, so the member stays where its
 * folder left it for as long as nothing new is written (only an entry appended after the match
 * index gets the leader to resend from the member's own end). So:
 *
 * <ul>
 *   <li>a member started on an empty folder that is still empty a while later, although the
 *       group has committed entries, and</li>
 *   <li>a member started on an existing folder whose log ends before the commit index it had
 *       reported to the current leader (so it lost entries it had acknowledged), and whose log
 *       does not grow for a while,</li>
 * </ul>
 *
 * <p>move leadership to another healthy member: a new leader starts with no memory of the old
 * match index, finds where the member's log ends and sends it the rest (or the newest snapshot).
 * (Removing and re-adding the member does not work: Ratis closes a member that sees itself
 * removed.) An ordinary restart never triggers it: a member reports as committed only entries it
 * has written to its log.
 *
 * <p>Known gap, Ratis only: until it has caught up, such a member can still vote, and a restored
 * one votes with the term and vote of its old copy. On MicroRaft a member on a new or damaged
 * folder rejoins without a vote ({@link io.cairn.storage.DiskIdentity}, {@code VoteGuard}).
 */
final class WipedNodeRejoin {
    private static final Logger log = LoggerFactory.getLogger(WipedNodeRejoin.class);
    private static final long CHECK_EVERY_MS = 1_000;
    private static final int STUCK_CHECKS = 3;
    private static final long GIVE_UP_AFTER_MS = 10 * 60_000;

    private final RaftPeer self;
    private final RaftGroup group;
    private final boolean fresh;
    private final LongSupplier appliedIndex;
    private final LongSupplier lastLogIndex;
    private final BooleanSupplier leads;
    private volatile boolean stopped;
    private volatile boolean rejoined;

    /**
     * @param fresh        the member started on an empty data folder
     * @param appliedIndex the member's last applied index (Ratis's view)
     * @param lastLogIndex the index of the member's last log entry (or of its snapshot when the log is empty)
     * @param leads        whether the member leads its group now (then it lacks nothing committed)
     */
    WipedNodeRejoin(RaftPeer self, RaftGroup group, boolean fresh, LongSupplier appliedIndex, LongSupplier lastLogIndex,
                    BooleanSupplier leads) {
        this.self = self;
        this.group = group;
        this.fresh = fresh;
        this.appliedIndex = appliedIndex;
        this.lastLogIndex = lastLogIndex;
        this.leads = leads;
    }

    boolean rejoined() {
        return rejoined;
    }

    void start() {
        if (group.getPeers().size() < 2) return; // a member alone has no leader to resend anything
        Thread t = new Thread(this::run, "cairn-rejoin-" + self.getId());
        t.setDaemon(true);
        t.start();
    }

    void stop() {
        stopped = true;
    }

    private void run() {
        long end = System.currentTimeMillis() + GIVE_UP_AFTER_MS;
        int stuck = 0;
        long lastOwn = -1;
        try (RaftClient client = RaftClient.newBuilder().setRaftGroup(group).setProperties(new RaftProperties())
                .setParameters(RatisTls.parameters()).setRetryPolicy(RetryPolicies.noRetry()).build()) {
            while (!stopped && System.currentTimeMillis() < end) {
                Thread.sleep(CHECK_EVERY_MS);
                if (stopped) return;
                String lost;
                if (fresh) {
                    if (appliedIndex.getAsLong() > 0) return; // catching up normally
                    stuck = groupCommitted(client) > 0 ? stuck + 1 : 0;
                    lost = "started with an empty data folder in a replicaset that has data";
                } else {
                    if (leads.getAsBoolean()) return;
                    long own = Math.max(lastLogIndex.getAsLong(), appliedIndex.getAsLong());
                    long acknowledged = commitReportedToLeader(client);
                    if (acknowledged < 0) continue; // no leader answered: ask again
                    if (acknowledged <= own) return; // it has all it ever acknowledged: an ordinary restart, or caught up
                    stuck = own > lastOwn && lastOwn >= 0 ? 0 : stuck + 1; // its log grows: the leader is resending
                    lastOwn = own;
                    lost = "holds less than it acknowledged (its data folder was replaced by an older copy?): its log ends at index "
                            + own + ", its leader has it at " + acknowledged;
                }
                if (stuck >= STUCK_CHECKS) {
                    rejoin(client, lost);
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            if (!stopped) log.warn("node {}: rejoin failed: {}", self.getId(), e.toString());
        }
    }

    private long groupCommitted(RaftClient client) {
        long max = 0;
        for (RaftPeer peer : group.getPeers()) {
            if (peer.getId().equals(self.getId())) continue;
            try {
                GroupInfoReply info = client.getGroupManagementApi(peer.getId()).info(group.getGroupId());
                for (CommitInfoProto c : info.getCommitInfos()) max = Math.max(max, c.getCommitIndex());
            } catch (Exception unreachable) {
                // another peer may answer
            }
        }
        return max;
    }

    /**
     * The commit index this member last reported to the current leader (the leader's commit
     * information about it), 0 when the leader has none, -1 when no leader answered.
     */
    private long commitReportedToLeader(RaftClient client) {
        for (RaftPeer peer : group.getPeers()) {
            if (peer.getId().equals(self.getId())) continue;
            try {
                GroupInfoReply info = client.getGroupManagementApi(peer.getId()).info(group.getGroupId());
                if (!info.getRoleInfoProto().hasLeaderInfo()) continue;
                long reported = 0;
                for (CommitInfoProto c : info.getCommitInfos()) {
                    if (RaftPeerId.valueOf(c.getServer().getId()).equals(self.getId())) reported = Math.max(reported, c.getCommitIndex());
                }
                return reported;
            } catch (Exception unreachable) {
                // another peer may lead
            }
        }
        return -1;
    }

    /** The peer that says it leads, or null when none answers so. */
    private RaftPeerId leader(RaftClient client) {
        for (RaftPeer peer : group.getPeers()) {
            if (peer.getId().equals(self.getId())) continue;
            try {
                if (client.getGroupManagementApi(peer.getId()).info(group.getGroupId()).getRoleInfoProto().hasLeaderInfo()) return peer.getId();
            } catch (Exception unreachable) {
                // another peer may lead
            }
        }
        return null;
    }

    private void rejoin(RaftClient client, String lost) throws Exception {
        log.warn("ALERT node {} {}: asking for a leader change so that the new leader ships it the snapshot and log", self.getId(), lost);
        RaftPeerId leader = leader(client);
        if (leader == null) throw new IllegalStateException("no leader answered");
        // The request must reach the leader itself: a client without retries does not follow a NotLeader answer.
        try (RaftClient toLeader = RaftClient.newBuilder().setRaftGroup(group).setLeaderId(leader).setProperties(new RaftProperties())
                .setParameters(RatisTls.parameters()).setRetryPolicy(RetryPolicies.noRetry()).build()) {
            for (RaftPeer peer : group.getPeers()) {
                if (peer.getId().equals(self.getId()) || peer.getId().equals(leader)) continue;
                RaftClientReply reply = toLeader.admin().transferLeadership(peer.getId(), 10_000);
                if (reply.isSuccess()) {
                    rejoined = true;
                    log.info("node {}: leadership moved from {} to {}; catching up", self.getId(), leader, peer.getId());
                    return;
                }
            }
        }
        throw new IllegalStateException("no member could take over leadership from " + leader);
    }
}
