package io.cairn.server.bench;

import io.cairn.core.wire.MemberChange;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.LocalCluster;
import io.cairn.storage.StorageAdmin;

import java.time.Duration;

/**
 * {@code cairn bench replace --wipe}: a follower of a loaded replicaset loses its folder and restarts
 * (issue 21): the time from its restart until its new member votes, with the steps the coordinator
 * took on the way (the old member out of the voters, the new one in as a learner, promoted).
 */
final class WipedFollowerBench {
    private static final long POLL_MS = 50;

    private WipedFollowerBench() {
    }

    static void run(LocalCluster cluster, ClusterConfig config, int keys, Duration timeout) throws Exception {
        String follower = cluster.nodes().keySet().stream().filter(id -> !cluster.storage(id).node().isLeader()).sorted().findFirst().orElseThrow();
        cluster.stopNode(follower);
        LocalCluster.deleteTree(config.nodeDir(follower));
        long start = System.nanoTime();
        cluster.startNode(follower);
        String member = cluster.storage(follower).node().identity().member();
        System.out.printf("%s restarted on an empty folder as member %s in %.1f s%n", follower, member, secondsSince(start));
        long removed = 0, learner = 0;
        try (StorageAdmin group = new StorageAdmin(config.topology().replicaset("rs1").orElseThrow(), Duration.ofSeconds(5))) {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                MemberChange.View v = members(group);
                if (v != null) {
                    if (removed == 0 && !v.voters().containsKey(follower)) removed = step(start, "old member " + follower + " left the voters");
                    if (learner == 0 && v.learners().containsKey(member)) learner = step(start, member + " a learner");
                    if (v.voters().containsKey(member)) {
                        step(start, member + " a voter");
                        System.out.printf("%nwiped follower holding %,d keys: restart to voter %.1f s (learner to voter %.1f s)%n", keys,
                                secondsSince(start), learner == 0 ? 0 : (System.nanoTime() - learner) / 1e9);
                        return;
                    }
                }
                Thread.sleep(POLL_MS); // a bench polling the group's membership, not a test
            }
        }
        throw new IllegalStateException(member + " not a voter within " + timeout + " (the coordinator's /info membership says why)");
    }

    private static MemberChange.View members(StorageAdmin group) {
        try {
            return group.members();
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static long step(long start, String what) {
        System.out.printf("  +%.1f s  %s%n", secondsSince(start), what);
        return System.nanoTime();
    }

    private static double secondsSince(long start) {
        return (System.nanoTime() - start) / 1e9;
    }
}
