package io.cairn.router;

import io.cairn.client.ReplicasetUnavailable;
import io.cairn.core.BucketHasher;
import io.cairn.core.GroupIds;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpCodec;
import io.cairn.core.kv.OpResult;
import io.cairn.core.move.MoveQuery;
import io.cairn.core.topology.NodeAddress;
import io.cairn.core.wire.DataPlane;
import io.cairn.storage.ReplicationEngine;
import io.cairn.core.wire.DiscoveryCursor;
import io.cairn.core.wire.KeyPage;
import io.cairn.core.wire.KeyQuery;
import io.cairn.client.InProcessDataPlane;
import io.cairn.core.wire.StorageRequest;
import io.cairn.storage.StorageNode;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The storage members' data-plane listeners, spoken to with raw frames. */
class DataPlaneTest {
    @TempDir
    Path dir;

    @Test
    void aWriteSentAgainWithTheSameIdsIsAppliedOnce() throws Exception {
        try (TestCluster cluster = new TestCluster(dir, 1, 3, 30).start().bootstrap()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> cluster.leaderOf("rs1") != null);
            StorageNode leader = cluster.leaderOf("rs1");
            byte[] key = "counter".getBytes(StandardCharsets.UTF_8);
            int bucket = BucketHasher.bucketOf(key, 30);
            byte[] incr = StorageRequest.write(List.of(new KvOp(KvOp.Type.INCRBY, bucket, key, null, 5, 0)));
            UUID client = UUID.randomUUID();
            try (RawConnection conn = new RawConnection(leader.dataPlaneEndpoint())) {
                // A leader that is not ready yet answers RETRY (nothing submitted): send again until it answers.
                DataPlane.Response first = await().atMost(Duration.ofSeconds(20))
                        .until(() -> conn.call(42, client, DataPlane.WRITE, incr), r -> r.status() != DataPlane.RETRY);
                DataPlane.Response again = conn.call(42, client, DataPlane.WRITE, incr);
                assertThat(first.status()).isEqualTo(DataPlane.OK);
                assertThat(again.status()).isEqualTo(DataPlane.OK);
                assertThat(OpCodec.decodeResults(first.body())).containsExactly(OpResult.integer(5));
                assertThat(OpCodec.decodeResults(again.body())).as("answered from the retry cache").containsExactly(OpResult.integer(5));

                DataPlane.Response read = conn.call(43, client, DataPlane.READ, StorageRequest.read(List.of(KvOp.get(bucket, key))));
                assertThat(read.status()).isEqualTo(DataPlane.OK);
                assertThat(new String(OpCodec.decodeResults(read.body()).get(0).bytes(), StandardCharsets.UTF_8)).isEqualTo("5");
            }
        }
    }

    /** Issue 28: a router that does not read its answers holds about the high-water mark of the member's memory, not one answer per request. */
    @Test
    void aConnectionWhoseAnswersAreNotReadIsNotReadFromUntilTheyDrain() throws Exception {
        try (TestCluster cluster = new TestCluster(dir, 1, 3, 30).start().bootstrap()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> cluster.leaderOf("rs1") != null);
            StorageNode leader = cluster.leaderOf("rs1");
            byte[] key = "big".getBytes(StandardCharsets.UTF_8);
            int bucket = BucketHasher.bucketOf(key, 30);
            byte[] value = new byte[256 << 10];
            java.util.Arrays.fill(value, (byte) 'v');
            UUID client = UUID.randomUUID();
            try (RawConnection conn = new RawConnection(leader.dataPlaneEndpoint())) {
                byte[] set = StorageRequest.write(List.of(KvOp.set(bucket, key, value)));
                await().atMost(Duration.ofSeconds(20)).until(() -> conn.call(1, client, DataPlane.WRITE, set), r -> r.status() == DataPlane.OK);
            }
            // 2,000 reads of 256 KB (500 MB of answers) sent at once, none read yet
            int requests = 2_000;
            byte[] read = StorageRequest.read(List.of(KvOp.get(bucket, key)));
            long servedBefore = leader.dataPlaneRequestsServed();
            try (RawConnection conn = new RawConnection(leader.dataPlaneEndpoint())) {
                for (int i = 0; i < requests; i++) conn.send(100 + i, client, DataPlane.READ, read);
                conn.flush();
                await("the member stops reading").atMost(Duration.ofSeconds(20)).until(() -> leader.dataPlaneReadingPaused() > 0);
                // what stays served while nothing is read: the high-water mark (8 MB) and the sockets' buffers, not 500 MB
                await("answers held stay bounded").during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
                        .until(() -> (leader.dataPlaneRequestsServed() - servedBefore) * value.length < 100L << 20);
                // reading them all: every answer arrives (in any order: call ids tell them apart), and the member serves the rest
                java.util.Set<Long> answered = new java.util.HashSet<>();
                for (int i = 0; i < requests; i++) {
                    DataPlane.Response r = conn.next();
                    assertThat(answered.add(r.callId())).as("call %d answered once", r.callId()).isTrue();
                    assertThat(r.callId()).isBetween(100L, 100L + requests - 1);
                    // a loaded machine may move the leadership meanwhile: a read is then refused, definitely, never lost
                    assertThat(r.status()).isIn(DataPlane.OK, DataPlane.NOT_LEADER);
                    if (r.status() == DataPlane.OK) assertThat(OpCodec.decodeResults(r.body()).get(0).bytes()).hasSize(value.length);
                }
                assertThat(leader.dataPlaneRequestsServed() - servedBefore).isEqualTo(requests);
            }
        }
    }

    @Test
    void eachMemberListensOnTheDataPortItsTopologyNames() throws Exception {
        try (TestCluster cluster = new TestCluster(dir, 1, 3, 30).start()) {
            for (NodeAddress n : cluster.topology.replicasets().get(0).nodes()) {
                assertThat(n.dataPort()).isPositive();
                assertThat(cluster.running.get(n.id()).dataPlaneEndpoint()).isEqualTo(n.dataAddress());
            }
        }
    }

    /**
     * A topology written before data-plane ports were named: each member binds any free port, and a
     * router (and the bootstrap's admin calls) find it by asking the member's Raft group.
     */
    @Test
    void membersWithoutANamedDataPortAreFoundThroughTheirRaftGroup() throws Exception {
        try (TestCluster cluster = new TestCluster(dir, 1, 3, 30, ReplicationEngine.RATIS, false).start().bootstrap()) {
            assertThat(cluster.topology.replicasets().get(0).nodes()).allSatisfy(n -> assertThat(n.dataAddress()).isNull());
            Router router = cluster.startRouter(RouterConfig.defaults());
            byte[] key = "k".getBytes(StandardCharsets.UTF_8);
            int bucket = BucketHasher.bucketOf(key, 30);
            assertThat(router.execute(List.of(KvOp.set(bucket, key, "v".getBytes(StandardCharsets.UTF_8)))).get(20, TimeUnit.SECONDS))
                    .containsExactly(OpResult.OK);
            assertThat(router.execute(List.of(KvOp.get(bucket, key))).get(20, TimeUnit.SECONDS).get(0).bytes())
                    .isEqualTo("v".getBytes(StandardCharsets.UTF_8));
        }
    }

    @Test
    void aFollowerAnswersNotLeaderAndNamesTheLeader() throws Exception {
        try (TestCluster cluster = new TestCluster(dir, 1, 3, 30).start().bootstrap()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> cluster.leaderOf("rs1") != null);
            StorageNode leader = cluster.leaderOf("rs1");
            StorageNode follower = cluster.running.values().stream().filter(n -> n != leader).findFirst().orElseThrow();
            byte[] key = "k".getBytes(StandardCharsets.UTF_8);
            byte[] set = StorageRequest.write(List.of(KvOp.set(BucketHasher.bucketOf(key, 30), key, key)));
            try (RawConnection conn = new RawConnection(follower.dataPlaneEndpoint())) {
                DataPlane.Response r = conn.call(1, UUID.randomUUID(), DataPlane.WRITE, set);
                assertThat(r.status()).isEqualTo(DataPlane.NOT_LEADER);
                assertThat(r.text()).isIn(leader.id(), "");
            }
        }
    }

    /**
     * A follower read (STALE_READ) is answered by the member it is sent to, follower or not, once it
     * has applied the index it carries; a member that has not answers STALE at once, without redirecting.
     */
    @Test
    void aFollowerAnswersAStaleReadOnceItAppliedTheIndexAndRefusesOneBeyondIt() throws Exception {
        try (TestCluster cluster = new TestCluster(dir, 1, 3, 30).start().bootstrap()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> cluster.leaderOf("rs1") != null);
            StorageNode leader = cluster.leaderOf("rs1");
            StorageNode follower = cluster.running.values().stream().filter(n -> n != leader).findFirst().orElseThrow();
            byte[] key = "k".getBytes(StandardCharsets.UTF_8);
            int bucket = BucketHasher.bucketOf(key, 30);
            UUID client = UUID.randomUUID();
            byte[] read = StorageRequest.read(List.of(KvOp.get(bucket, key)));
            try (RawConnection toLeader = new RawConnection(leader.dataPlaneEndpoint());
                 RawConnection toFollower = new RawConnection(follower.dataPlaneEndpoint())) {
                byte[] set = StorageRequest.write(List.of(KvOp.set(bucket, key, "v".getBytes(StandardCharsets.UTF_8))));
                DataPlane.Response written = await().atMost(Duration.ofSeconds(20))
                        .until(() -> toLeader.call(1, client, DataPlane.WRITE, set), r -> r.status() != DataPlane.RETRY);
                assertThat(written.status()).isEqualTo(DataPlane.OK);

                // The follower may learn of the commit a moment after the leader answered: STALE until then.
                java.util.concurrent.atomic.AtomicLong callIds = new java.util.concurrent.atomic.AtomicLong(100);
                DataPlane.Response served = await().atMost(Duration.ofSeconds(20))
                        .until(() -> toFollower.staleRead(callIds.incrementAndGet(), client, written.logIndex(), read), r -> r.status() == DataPlane.OK);
                assertThat(new String(OpCodec.decodeResults(served.body()).get(0).bytes(), StandardCharsets.UTF_8)).isEqualTo("v");

                DataPlane.Response refused = toFollower.staleRead(3, client, written.logIndex() + 1_000_000, read);
                assertThat(refused.status()).isEqualTo(DataPlane.STALE);
                assertThat(refused.text()).isNotEmpty();
            }
        }
    }

    /**
     * The router's queries (discovery pages, stats, move and key queries) travel as data-plane
     * READs now: each read-only kind gets the bytes a Ratis client's read-only request got, a write
     * sent as a query gets the same refusal value, and a malformed query fails on both paths.
     */
    @Test
    void everyQueryIsAnsweredOverTheDataPlaneAsTheRatisClientAnsweredIt() throws Exception {
        try (TestCluster cluster = new TestCluster(dir, 1, 3, 30, ReplicationEngine.RATIS, true).start().bootstrap()) {
            byte[] key = "k".getBytes(StandardCharsets.UTF_8);
            int bucket = BucketHasher.bucketOf(key, 30);
            var spec = cluster.topology.replicaset("rs1").orElseThrow();
            RaftGroup group = RaftGroup.valueOf(RaftGroupId.valueOf(GroupIds.replicaset("rs1")), StorageNode.peers(spec.nodes()));
            try (ReplicasetClient dataPlane = new ReplicasetClient(spec, RouterConfig.defaults(), null);
                 RaftClient ratis = RaftClient.newBuilder().setRaftGroup(group).setProperties(new RaftProperties())
                         .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(100, TimeDuration.valueOf(100, TimeUnit.MILLISECONDS)))
                         .build()) {
                dataPlane.submit(List.of(KvOp.set(bucket, key, key)), System.nanoTime() + TimeUnit.SECONDS.toNanos(20)).get(30, TimeUnit.SECONDS);
                List<byte[]> queries = List.of(
                        StorageRequest.read(List.of(KvOp.get(bucket, key), KvOp.get(bucket, "absent".getBytes(StandardCharsets.UTF_8)))),
                        StorageRequest.discover(DiscoveryCursor.START, 100),
                        StorageRequest.stats(),
                        StorageRequest.moveQuery(new MoveQuery.Status(10)),
                        StorageRequest.moveQuery(new MoveQuery.Digest(bucket)),
                        KeyQuery.listRange(KeyPage.Position.START, 30, 100, 1 << 20).encode(),
                        KeyQuery.countOwned(12345).encode(), // no ref held: a REF_NOT_HELD page
                        StorageRequest.write(List.of(KvOp.set(bucket, key, key)))); // not a query: a PROTOCOL result
                for (byte[] query : queries) {
                    // Retried as a whole: a background entry (a new leader's first one) may land between the two answers.
                    await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                        RaftClientReply viaRatis = ratis.io().sendReadOnly(Message.valueOf(ByteString.copyFrom(query)));
                        assertThat(viaRatis.isSuccess()).as("Ratis answers kind %s", query[0]).isTrue();
                        ByteBuffer viaDataPlane = dataPlane.query(query).get(20, TimeUnit.SECONDS);
                        assertThat(bytes(viaDataPlane)).as("kind %s", query[0]).isEqualTo(viaRatis.getMessage().getContent().toByteArray());
                    });
                }
            }
            // The state machine throws on a malformed query: the Ratis client saw the failure (and retried it
            // until its retry budget ran out); the data plane answers FAILED, which is not sent again.
            byte[] malformed = {(byte) StorageRequest.Kind.KEY_QUERY.code()};
            try (RaftClient ratis = RaftClient.newBuilder().setRaftGroup(group).setProperties(new RaftProperties())
                    .setRetryPolicy(RetryPolicies.noRetry()).build();
                 ReplicasetClient dataPlane = new ReplicasetClient(spec, RouterConfig.defaults(), null)) {
                await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThatThrownBy(() -> ratis.async()
                        .sendReadOnly(Message.valueOf(ByteString.copyFrom(malformed)), RaftPeerId.valueOf(cluster.leaderOf("rs1").id()))
                        .get(20, TimeUnit.SECONDS)).hasMessageContaining("BufferUnderflowException"));
                assertThatThrownBy(() -> dataPlane.query(malformed).get(20, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(ReplicasetUnavailable.class).hasMessageContaining("BufferUnderflowException");
            }
        }
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return out;
    }

    /**
     * A router in the same JVM as a member speaks to it through {@link InProcessDataPlane}: the
     * same ids, statuses and retry cache as over TCP, and a member that stops drops the session
     * (as it drops a connection), so the router redirects what it had in flight.
     */
    @Test
    void anInProcessSessionAnswersLikeTheSocketAndIsDroppedWhenTheMemberStops() throws Exception {
        String before = System.setProperty(InProcessDataPlane.PROPERTY, "true");
        try (TestCluster cluster = new TestCluster(dir, 1, 3, 30).start().bootstrap()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> cluster.leaderOf("rs1") != null);
            StorageNode leader = cluster.leaderOf("rs1");
            StorageNode follower = cluster.running.values().stream().filter(n -> n != leader).findFirst().orElseThrow();
            byte[] key = "counter".getBytes(StandardCharsets.UTF_8);
            int bucket = BucketHasher.bucketOf(key, 30);
            byte[] incr = StorageRequest.write(List.of(new KvOp(KvOp.Type.INCRBY, bucket, key, null, 7, 0)));
            UUID client = UUID.randomUUID();

            LocalCaller toLeader = new LocalCaller(leader.dataPlaneEndpoint());
            assertThat(leader.inProcessSessions()).isEqualTo(1);
            DataPlane.Response first = await().atMost(Duration.ofSeconds(20))
                    .until(() -> toLeader.call(42, client, DataPlane.WRITE, incr), r -> r.status() != DataPlane.RETRY);
            DataPlane.Response again = toLeader.call(42, client, DataPlane.WRITE, incr);
            assertThat(OpCodec.decodeResults(first.body())).containsExactly(OpResult.integer(7));
            assertThat(OpCodec.decodeResults(again.body())).as("answered from the retry cache").containsExactly(OpResult.integer(7));
            DataPlane.Response read = toLeader.call(43, client, DataPlane.READ, StorageRequest.read(List.of(KvOp.get(bucket, key))));
            assertThat(read.status()).isEqualTo(DataPlane.OK);
            assertThat(new String(OpCodec.decodeResults(read.body()).get(0).bytes(), StandardCharsets.UTF_8)).isEqualTo("7");

            LocalCaller toFollower = new LocalCaller(follower.dataPlaneEndpoint());
            DataPlane.Response redirected = toFollower.call(44, client, DataPlane.READ, StorageRequest.read(List.of(KvOp.get(bucket, key))));
            assertThat(redirected.status()).isEqualTo(DataPlane.NOT_LEADER);
            assertThat(redirected.text()).isIn(leader.id(), "");

            DataPlane.Response stale = toFollower.staleRead(45, client, first.logIndex() + 1_000_000,
                    StorageRequest.read(List.of(KvOp.get(bucket, key))));
            assertThat(stale.status()).as("a follower read beyond what the member applied").isEqualTo(DataPlane.STALE);

            String endpoint = follower.dataPlaneEndpoint();
            cluster.stopNode(follower.id());
            assertThat(toFollower.dropped.get()).as("the session is dropped when its member stops").isTrue();
            assertThat(InProcessDataPlane.find(endpoint)).as("a stopped member is not found any more").isNull();
            toLeader.session.close();
            assertThat(leader.inProcessSessions()).isZero();
        } finally {
            if (before == null) System.clearProperty(InProcessDataPlane.PROPERTY);
            else System.setProperty(InProcessDataPlane.PROPERTY, before);
        }
    }

    /** An in-process session used one call at a time. */
    private static final class LocalCaller {
        final java.util.concurrent.BlockingQueue<DataPlane.Response> responses = new java.util.concurrent.LinkedBlockingQueue<>();
        final java.util.concurrent.atomic.AtomicBoolean dropped = new java.util.concurrent.atomic.AtomicBoolean();
        final InProcessDataPlane.Session session;

        LocalCaller(String endpoint) {
            InProcessDataPlane.Listener listener = InProcessDataPlane.find(endpoint);
            assertThat(listener).as("a member of this JVM is found by its endpoint").isNotNull();
            session = listener.open(responses::add, () -> dropped.set(true));
        }

        DataPlane.Response call(long callId, UUID client, byte type, byte[] message) throws InterruptedException {
            session.send(callId, client, type, 0, message);
            return response(callId);
        }

        DataPlane.Response staleRead(long callId, UUID client, long minIndex, byte[] read) throws InterruptedException {
            session.staleRead(callId, client, 0, minIndex, read);
            return response(callId);
        }

        private DataPlane.Response response(long callId) throws InterruptedException {
            DataPlane.Response r = responses.poll(20, TimeUnit.SECONDS);
            assertThat(r).as("a response within 20 s").isNotNull();
            assertThat(r.callId()).isEqualTo(callId);
            return r;
        }
    }
}
