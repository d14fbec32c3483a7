package io.cairn.router;

import io.cairn.core.BucketHasher;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpCodec;
import io.cairn.core.kv.OpResult;
import io.cairn.core.wire.DataPlane;
import io.cairn.core.wire.StorageRequest;
import io.cairn.storage.ReplicationEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class ReplicatedWritesTest {
    @TempDir
    Path dir;

    @Test
    void writesAreReadBackThroughTheRouterAcrossReplicasets() throws Exception {
        try (TestCluster cluster = new TestCluster(dir, 2, 3, 300).start().bootstrap()) {
            Router router = cluster.startRouter(RouterConfig.defaults());
            assertThat(router.bucketsByReplicaset()).containsEntry("rs1", 150).containsEntry("rs2", 150);
            List<KvOp> sets = new ArrayList<>();
            List<KvOp> gets = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                byte[] key = ("key-" + i).getBytes(StandardCharsets.UTF_8);
                int bucket = BucketHasher.bucketOf(key, 300);
                sets.add(KvOp.set(bucket, key, ("value-" + i).getBytes(StandardCharsets.UTF_8)));
                gets.add(KvOp.get(bucket, key));
            }
            List<OpResult> setResults = router.execute(sets).get(30, TimeUnit.SECONDS);
            assertThat(setResults).allMatch(r -> r.equals(OpResult.OK));
            List<OpResult> values = router.execute(gets).get(30, TimeUnit.SECONDS);
            for (int i = 0; i < 500; i++) {
                assertThat(new String(values.get(i).bytes(), StandardCharsets.UTF_8)).isEqualTo("value-" + i);
            }
            assertThat(router.dbSize().get(10, TimeUnit.SECONDS)).isEqualTo(500);
        }
    }

    @Test
    void followerReadsSeeEveryAcknowledgedWrite() throws Exception {
        try (TestCluster cluster = new TestCluster(dir, 1, 3, 60).start().bootstrap()) {
            RouterConfig followerReads = new RouterConfig(java.time.Duration.ofSeconds(10), java.time.Duration.ofSeconds(1),
                    10_000, 1024, 4 << 20, 4, true);
            Router router = cluster.startRouter(followerReads);
            for (int i = 0; i < 50; i++) {
                byte[] key = ("f" + i).getBytes(StandardCharsets.UTF_8);
                int bucket = BucketHasher.bucketOf(key, 60);
                router.execute(List.of(KvOp.set(bucket, key, ("v" + i).getBytes(StandardCharsets.UTF_8)))).get(10, TimeUnit.SECONDS);
                OpResult read = router.execute(List.of(KvOp.get(bucket, key))).get(10, TimeUnit.SECONDS).get(0);
                assertThat(new String(read.bytes(), StandardCharsets.UTF_8)).isEqualTo("v" + i);
            }
            System.out.printf("follower reads: %d of 50 served by the member asked%n", router.followerReadsServed());
            // A member that has not applied the write yet refuses and the leader answers, so only some are served there.
            assertThat(router.followerReadsServed()).as("reads served without the leader fallback").isPositive();
        }
    }

    /**
     * A follower read travels over the data plane to the member chosen; a member that has not applied
     * the index the read needs answers STALE, and the router asks the leader, which answers the same
     * read (here the index is beyond any member's log, so the member always refuses).
     */
    @Test
    void aFollowerReadTheMemberRefusesIsAnsweredByTheLeader() throws Exception {
        try (TestCluster cluster = new TestCluster(dir, 1, 3, 60).start().bootstrap()) {
            RouterConfig followerReads = new RouterConfig(Duration.ofSeconds(10), Duration.ofSeconds(1), 10_000, 1024, 4 << 20, 1, true);
            try (ReplicasetClient client = new ReplicasetClient(cluster.topology.replicaset("rs1").orElseThrow(), followerReads, null)) {
                byte[] key = "refused".getBytes(StandardCharsets.UTF_8);
                int bucket = BucketHasher.bucketOf(key, 60);
                List<OpResult> set = client.submit(List.of(KvOp.set(bucket, key, "v1".getBytes(StandardCharsets.UTF_8))), deadline()).get(30, TimeUnit.SECONDS);
                assertThat(set).containsExactly(OpResult.OK);
                String leader = cluster.leaderOf("rs1").id();
                String follower = cluster.running.keySet().stream().filter(id -> !id.equals(leader)).findFirst().orElseThrow();
                byte[] read = StorageRequest.read(List.of(KvOp.get(bucket, key)));

                // The first read to a member also opens the connection to it; until that is done the leader answers.
                await().atMost(Duration.ofSeconds(20)).until(() -> {
                    List<OpResult> answer = client.followerRead(follower, read, Long.MAX_VALUE / 2, deadline()).get(30, TimeUnit.SECONDS);
                    assertThat(new String(answer.get(0).bytes(), StandardCharsets.UTF_8)).as("answered by the leader").isEqualTo("v1");
                    return client.followerReadsRefused() > 0;
                });
                assertThat(client.followerReadsRefused()).as("refused by " + follower).isEqualTo(1);
                assertThat(client.followerReadsServed()).as("served by the member asked").isZero();
            }
        }
    }

    private static long deadline() {
        return System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    }

    /**
     * Follower reads have a bounded lag: a member left alone (its leader and the third member
     * stopped) answers them only until its last word from a leader is an election timeout old,
     * then refuses (the router then asks the leader), instead of serving its copy indefinitely.
     */
    @Test
    void aFollowerCutOffFromItsLeaderStopsAnsweringFollowerReads() throws Exception {
        // Usually the lone member is a follower that lost its leader; if it won an election in the
        // second between the two stops, it is a leader that lost its majority: refused either way.
        assertACutOffMemberStopsAnsweringFollowerReads(false, " has not heard from a leader for", " leads but has not heard from a majority for");
    }

    /** The same bound for a leader whose followers both stopped: it may not serve its copy indefinitely either. */
    @Test
    void aLeaderCutOffFromItsMajorityStopsAnsweringFollowerReads() throws Exception {
        assertACutOffMemberStopsAnsweringFollowerReads(true, " leads but has not heard from a majority for");
    }

    private void assertACutOffMemberStopsAnsweringFollowerReads(boolean keepLeader, String... ratisRefusals) throws Exception {
        try (TestCluster cluster = new TestCluster(dir, 1, 3, 60).start().bootstrap()) {
            Router router = cluster.startRouter(RouterConfig.defaults());
            byte[] key = "lag".getBytes(StandardCharsets.UTF_8);
            int bucket = BucketHasher.bucketOf(key, 60);
            router.execute(List.of(KvOp.set(bucket, key, "v1".getBytes(StandardCharsets.UTF_8)))).get(10, TimeUnit.SECONDS);
            String leader = cluster.leaderOf("rs1").id();
            List<String> followers = cluster.topology.replicaset("rs1").orElseThrow().nodes().stream()
                    .map(n -> n.id()).filter(id -> !id.equals(leader)).toList();
            String lone = keepLeader ? leader : followers.get(0);
            List<String> stopped = keepLeader ? followers : List.of(leader, followers.get(1));
            byte[] read = StorageRequest.read(List.of(KvOp.get(bucket, key)));
            UUID client = UUID.randomUUID();
            AtomicLong callIds = new AtomicLong();
            try (RawConnection toLone = new RawConnection(cluster.node(lone).dataPlaneEndpoint())) {
                await().atMost(Duration.ofSeconds(10)).until(() -> {
                    DataPlane.Response r = toLone.staleRead(callIds.incrementAndGet(), client, 0, read);
                    return r.status() == DataPlane.OK && "v1".equals(new String(OpCodec.decodeResults(r.body()).get(0).bytes(), StandardCharsets.UTF_8));
                });
                long stoppedAt = System.nanoTime();
                for (String id : stopped) cluster.stopNode(id);
                DataPlane.Response refused = await().atMost(Duration.ofSeconds(20))
                        .until(() -> toLone.staleRead(callIds.incrementAndGet(), client, 0, read), r -> r.status() != DataPlane.OK);
                assertThat(refused.status()).isEqualTo(DataPlane.STALE);
                if (cluster.engine == ReplicationEngine.RATIS) {
                    assertThat(refused.text()).containsAnyOf(java.util.Arrays.stream(ratisRefusals).map(r -> lone + r).toArray(String[]::new));
                }
                System.out.printf("%s refused follower reads %d ms after the others began to stop: %s%n", lone,
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedAt), refused.text());
            }
        }
    }

    @Test
    void anExpiryDecidedByTheLeaderHoldsOnTheNextLeader() throws Exception {
        try (TestCluster cluster = new TestCluster(dir, 1, 3, 60).start().bootstrap()) {
            Router router = cluster.startRouter(RouterConfig.defaults());
            byte[] shortKey = "short".getBytes(StandardCharsets.UTF_8);
            byte[] longKey = "long".getBytes(StandardCharsets.UTF_8);
            int b1 = BucketHasher.bucketOf(shortKey, 60);
            int b2 = BucketHasher.bucketOf(longKey, 60);
            byte[] v = "v".getBytes(StandardCharsets.UTF_8);
            long ttlMs = 600_000;
            long setAtMs = System.currentTimeMillis(); // the members' clock: they run in this JVM
            router.execute(List.of(new KvOp(KvOp.Type.SET, b1, shortKey, v, 300, KvOp.FLAG_EXPIRE_REL),
                    new KvOp(KvOp.Type.SET, b2, longKey, v, ttlMs, KvOp.FLAG_EXPIRE_REL))).get(10, TimeUnit.SECONDS);
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(() ->
                    router.execute(List.of(KvOp.get(b1, shortKey))).get(10, TimeUnit.SECONDS).get(0).bytes() == null);

            cluster.stopNode(cluster.leaderOf("rs1").id());
            List<OpResult> after = router.execute(List.of(KvOp.get(b1, shortKey),
                    KvOp.of(KvOp.Type.PTTL, b2, longKey))).get(30, TimeUnit.SECONDS);
            assertThat(after.get(0).bytes()).as("expired key stays expired on the new leader").isNull();
            long sinceMs = System.currentTimeMillis() - setAtMs;
            // What remains of the 600 s set before the failover, however long the failover took.
            assertThat(after.get(1).number()).as("remaining ttl on the new leader, %d ms after the SET", sinceMs)
                    .isBetween(ttlMs - sinceMs, ttlMs);
        }
    }
}
