package io.cairn.router;

import io.cairn.core.BucketHasher;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The data plane finds a member again after it restarts on a new listener port and leads. */
class RestartedLeaderTest {
    private static final int BUCKETS = 30;

    @TempDir
    Path dir;

    @Test
    void writesReachALeaderThatWasStoppedAndStartedAgain() throws Exception {
        try (TestCluster cluster = new TestCluster(dir, 1, 3, BUCKETS).start().bootstrap()) {
            Router router = cluster.startRouter(RouterConfig.defaults());
            assertThat(write(router, "a", "1")).isEqualTo(OpResult.OK);
            await().atMost(Duration.ofSeconds(30)).until(() -> cluster.leaderOf("rs1") != null);
            String first = cluster.leaderOf("rs1").id();

            cluster.stopNode(first);
            assertThat(write(router, "b", "2")).isEqualTo(OpResult.OK);
            cluster.startNode(first);

            // The restarted member must catch up before it can take over: try until it does.
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).ignoreExceptions().until(() -> {
                cluster.leaderOf("rs1").transferLeadership(first).get(15, TimeUnit.SECONDS);
                return cluster.node(first).isLeader();
            });
            assertThat(write(router, "c", "3")).as("write through the restarted leader").isEqualTo(OpResult.OK);
            assertThat(router.leaderHints()).containsEntry("rs1", first);
        }
    }

    /** A planned stop (SIGTERM, cairn node stop) hands leadership over first: no wait for the followers' leader timeout. */
    @Test
    void aLeaderStoppedAsPlannedHandsItsLeadershipOver() throws Exception {
        try (TestCluster cluster = new TestCluster(dir, 1, 3, BUCKETS).start().bootstrap()) {
            Router router = cluster.startRouter(RouterConfig.defaults());
            assertThat(write(router, "a", "1")).isEqualTo(OpResult.OK);
            await().atMost(Duration.ofSeconds(30)).until(() -> cluster.leaderOf("rs1") != null);
            var leader = cluster.leaderOf("rs1");
            String successor = leader.handOverLeadership();
            if (cluster.engine == io.cairn.storage.ReplicationEngine.RATIS) {
                assertThat(successor).as("Ratis hands over by itself at close, if at all").isNull();
                return;
            }
            assertThat(successor).as("a voter took over").isNotNull().isNotEqualTo(leader.id());
            cluster.stopNode(leader.id());
            await().atMost(Duration.ofSeconds(10)).until(() -> cluster.node(successor).isLeader());
            assertThat(write(router, "b", "2")).as("a write through the new leader").isEqualTo(OpResult.OK);
        }
    }

    private static OpResult write(Router router, String key, String value) throws Exception {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        KvOp op = KvOp.set(BucketHasher.bucketOf(k, BUCKETS), k, value.getBytes(StandardCharsets.UTF_8));
        return router.execute(List.of(op)).get(30, TimeUnit.SECONDS).get(0);
    }
}
