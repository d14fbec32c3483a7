package io.cairn.router;

import io.cairn.core.BucketHasher;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpCodec;
import io.cairn.core.kv.OpResult;
import io.cairn.core.wire.DataPlane;
import io.cairn.core.wire.InProcessDataPlane;
import io.cairn.core.wire.StorageRequest;
import io.cairn.storage.StorageNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
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
            assertThat(again.logIndex()).isEqualTo(first.logIndex());
            DataPlane.Response read = toLeader.call(43, client, DataPlane.READ, StorageRequest.read(List.of(KvOp.get(bucket, key))));
            assertThat(read.status()).isEqualTo(DataPlane.OK);
            assertThat(new String(OpCodec.decodeResults(read.body()).get(0).bytes(), StandardCharsets.UTF_8)).isEqualTo("7");

            LocalCaller toFollower = new LocalCaller(follower.dataPlaneEndpoint());
            DataPlane.Response redirected = toFollower.call(44, client, DataPlane.READ, StorageRequest.read(List.of(KvOp.get(bucket, key))));
            assertThat(redirected.status()).isEqualTo(DataPlane.NOT_LEADER);
            assertThat(redirected.text()).isIn(leader.id(), "");

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
            session.send(callId, client, type, message);
            DataPlane.Response r = responses.poll(20, TimeUnit.SECONDS);
            assertThat(r).as("a response within 20 s").isNotNull();
            assertThat(r.callId()).isEqualTo(callId);
            return r;
        }
    }

    /** One blocking connection; answers arrive in order here because each call waits for its answer. */
    private static final class RawConnection implements AutoCloseable {
        private final Socket socket;
        private final DataOutputStream out;
        private final DataInputStream in;

        RawConnection(String endpoint) throws IOException {
            int colon = endpoint.lastIndexOf(':');
            socket = new Socket(endpoint.substring(0, colon), Integer.parseInt(endpoint.substring(colon + 1)));
            socket.setSoTimeout((int) TimeUnit.SECONDS.toMillis(20));
            out = new DataOutputStream(socket.getOutputStream());
            in = new DataInputStream(socket.getInputStream());
        }

        DataPlane.Response call(long callId, UUID client, byte type, byte[] message) throws IOException {
            out.writeInt(DataPlane.REQUEST_HEADER_BYTES + message.length);
            out.writeLong(callId);
            out.writeLong(client.getMostSignificantBits());
            out.writeLong(client.getLeastSignificantBits());
            out.writeByte(type);
            out.write(message);
            out.flush();
            byte[] frame = new byte[in.readInt()];
            in.readFully(frame);
            DataPlane.Response r = DataPlane.decodeResponse(ByteBuffer.wrap(frame));
            assertThat(r.callId()).isEqualTo(callId);
            return r;
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
