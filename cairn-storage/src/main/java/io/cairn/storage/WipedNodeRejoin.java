package io.cairn.storage;

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

import java.util.function.LongSupplier;

/**
 * Brings back a member whose data folder was wiped (or replaced by an empty one).
 *
 * <p>Raft assumes a member never loses entries it acknowledged. A Ratis leader remembers the
 * wiped member's old match index and never resends the entries below it, so the member would
 * stay empty forever. When a member started on an empty folder is still empty a while later
 * although the group has committed entries, it moves leadership to another healthy member: a
 * new leader starts with no memory of the old match index, finds the member empty and sends it
 * the newest snapshot (or the whole log). (Removing and re-adding the member does not work:
 * Ratis closes a member that sees itself removed.)
 *
 * <p>Known gap (design document 002, disk generation id): until it has caught up, the empty
 * member can still vote; it should rejoin as a non-voting learner instead.
 */
final class WipedNodeRejoin {
    private static final Logger log = LoggerFactory.getLogger(WipedNodeRejoin.class);
    private static final long CHECK_EVERY_MS = 1_000;
    private static final int STUCK_CHECKS = 3;
    private static final long GIVE_UP_AFTER_MS = 10 * 60_000;

    private final RaftPeer self;
    private final RaftGroup group;
    private final LongSupplier appliedIndex;
    private volatile boolean stopped;
    private volatile boolean rejoined;

    WipedNodeRejoin(RaftPeer self, RaftGroup group, LongSupplier appliedIndex) {
        this.self = self;
        this.group = group;
        this.appliedIndex = appliedIndex;
    }

    boolean rejoined() {
        return rejoined;
    }

    void start() {
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
        try (RaftClient client = RaftClient.newBuilder().setRaftGroup(group).setProperties(new RaftProperties())
                .setRetryPolicy(RetryPolicies.noRetry()).build()) {
            while (!stopped && System.currentTimeMillis() < end) {
                Thread.sleep(CHECK_EVERY_MS);
                if (appliedIndex.getAsLong() > 0) return; // catching up normally
                stuck = groupCommitted(client) > 0 ? stuck + 1 : 0;
                if (stuck >= STUCK_CHECKS) {
                    rejoin(client);
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.warn("node {}: rejoin after wipe failed: {}", self.getId(), e.toString());
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

    private void rejoin(RaftClient client) throws Exception {
        log.warn("ALERT node {} started with an empty data folder in a replicaset that has data: "
                + "asking for a leader change so that the new leader ships it the snapshot and log", self.getId());
        RaftPeerId leader = client.getLeaderId();
        for (RaftPeer peer : group.getPeers()) {
            if (peer.getId().equals(self.getId()) || peer.getId().equals(leader)) continue;
            RaftClientReply reply = client.admin().transferLeadership(peer.getId(), 10_000);
            if (reply.isSuccess()) {
                rejoined = true;
                log.info("node {}: leadership moved to {}; catching up", self.getId(), peer.getId());
                return;
            }
        }
        throw new IllegalStateException("no member could take over leadership");
    }
}
