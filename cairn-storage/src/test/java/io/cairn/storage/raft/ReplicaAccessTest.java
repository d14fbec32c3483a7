package io.cairn.storage.raft;

import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpCodec;
import io.cairn.core.kv.OpResult;
import io.cairn.core.wire.DataPlane;
import io.cairn.core.wire.StorageRequest;
import io.cairn.replication.Replica;
import io.cairn.replication.ReplicaConfig;
import io.cairn.replication.microraft.MicroRaftReplicas;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A replicaset of three members on the replication port (MicroRaft over loopback), each with the
 * storage state behind it and the data plane's {@link ReplicaAccess} in front: what a router's
 * requests get from a member that is not on Ratis.
 */
class ReplicaAccessTest {
    private static final UUID ROUTER = UUID.fromString("00000000-0000-4000-8000-0000000000bb");
    private static final byte[] KEY = "counter".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    private final List<Replica> replicas = new ArrayList<>();
    private final List<ReplicasetStateMachine> states = new ArrayList<>();
    private final List<ReplicaAccess> members = new ArrayList<>();

    @AfterEach
    void stop() {
        replicas.forEach(Replica::close);
        states.forEach(ReplicasetStateMachine::close);
    }

    @Test
    void theLeaderAppliesAWriteOnceWhenTheRouterSendsItAgainAndAFollowerRedirects() throws Exception {
        start();
        int leader = await().atMost(Duration.ofSeconds(30)).until(this::leaderIndex, i -> i >= 0);
        assertThat(call(leader, 1, DataPlane.WRITE, StorageRequest.bootstrap(1, 10)).status()).isEqualTo(DataPlane.OK);

        DataPlane.Response first = call(leader, 2, DataPlane.WRITE, incr());
        DataPlane.Response again = call(leader, 2, DataPlane.WRITE, incr());
        assertThat(number(first)).isEqualTo(1);
        assertThat(number(again)).as("the same call, re-sent after a lost answer").isEqualTo(1);
        assertThat(number(call(leader, 3, DataPlane.WRITE, incr()))).isEqualTo(2);

        DataPlane.Response read = call(leader, 4, DataPlane.READ, StorageRequest.read(List.of(KvOp.get(1, KEY))));
        assertThat(new String(OpCodec.decodeResults(read.body()).get(0).bytes(), StandardCharsets.UTF_8)).isEqualTo("2");
        // The leader's clock is in the entry every member applies: the replicaset's incarnation is fixed by it.
        assertThat(states.get(leader).state().stats().incarnation()).as("stamped by the leader").isNotZero();

        int follower = (leader + 1) % 3;
        // Two members commit: the third may not have heard from the leader yet, and could name nobody.
        await().atMost(Duration.ofSeconds(10)).until(() -> ("m" + leader).equals(replicas.get(follower).status().leaderId()));
        DataPlane.Response redirected = call(follower, 5, DataPlane.WRITE, incr());
        assertThat(redirected.status()).isEqualTo(DataPlane.NOT_LEADER);
        assertThat(redirected.text()).isEqualTo("m" + leader);

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(states).allSatisfy(s -> assertThat(s.appliedIndex()).isEqualTo(states.get(leader).appliedIndex())));
    }

    /**
     * A write whose bytes do not decode (cut short, here) from a process that is no router: every
     * replica would fail to apply it, so once logged it would stop the replicaset. The leader refuses
     * it with FAILED before the log, and the group goes on committing.
     */
    @Test
    void aMalformedWriteIsRefusedBeforeTheLogAndTheReplicasetGoesOn() throws Exception {
        start();
        int leader = await().atMost(Duration.ofSeconds(30)).until(this::leaderIndex, i -> i >= 0);
        assertThat(call(leader, 1, DataPlane.WRITE, StorageRequest.bootstrap(1, 10)).status()).isEqualTo(DataPlane.OK);
        long before = states.get(leader).appliedIndex();
        byte[] cut = java.util.Arrays.copyOf(incr(), incr().length - 3);

        DataPlane.Response refused = call(leader, 2, DataPlane.WRITE, cut);
        assertThat(refused.status()).isEqualTo(DataPlane.FAILED);
        assertThat(refused.text()).contains("WRITE entry cut short");
        assertThat(states.get(leader).appliedIndex()).as("nothing was logged").isEqualTo(before);
        assertThat(number(call(leader, 3, DataPlane.WRITE, incr()))).isEqualTo(1);
    }

    /**
     * A follower read on the port: the leader answers under its lease, a follower once it applied the
     * index the read carries (within the bounded lag of BOUNDED_STALE), and a follower that has not
     * applied it refuses with STALE rather than wait.
     */
    @Test
    void aFollowerAnswersAStaleReadOnceItAppliedTheIndexAndRefusesOneBeyondIt() throws Exception {
        start();
        int leader = await().atMost(Duration.ofSeconds(30)).until(this::leaderIndex, i -> i >= 0);
        assertThat(call(leader, 1, DataPlane.WRITE, StorageRequest.bootstrap(1, 10)).status()).isEqualTo(DataPlane.OK);
        DataPlane.Response written = call(leader, 2, DataPlane.WRITE, incr());
        assertThat(number(written)).isEqualTo(1);
        byte[] read = StorageRequest.read(List.of(KvOp.get(1, KEY)));
        int follower = (leader + 1) % 3;

        assertThat(value(staleRead(leader, 3, written.logIndex(), read))).as("the leader, under its lease").isEqualTo("1");
        DataPlane.Response served = await().atMost(Duration.ofSeconds(10))
                .until(() -> staleRead(follower, 4, written.logIndex(), read), r -> r.status() == DataPlane.OK);
        assertThat(value(served)).isEqualTo("1");
        DataPlane.Response refused = staleRead(follower, 5, written.logIndex() + 1_000_000, read);
        assertThat(refused.status()).isEqualTo(DataPlane.STALE);
        assertThat(refused.text()).contains("applied up to");
    }

    private DataPlane.Response staleRead(int member, long callId, long minIndex, byte[] read) throws Exception {
        CompletableFuture<DataPlane.Response> answer = new CompletableFuture<>();
        members.get(member).staleRead(responses(answer), callId, ROUTER, minIndex, read);
        return answer.get(10, TimeUnit.SECONDS);
    }

    private static String value(DataPlane.Response response) {
        assertThat(response.status()).as(response.text()).isEqualTo(DataPlane.OK);
        return new String(OpCodec.decodeResults(response.body()).get(0).bytes(), StandardCharsets.UTF_8);
    }

    private static MemberAccess.Responses responses(CompletableFuture<DataPlane.Response> answer) {
        return new MemberAccess.Responses() {
            @Override
            public boolean isOpen() {
                return true;
            }

            @Override
            public void respond(long id, byte status, long logIndex, ByteBuffer body) {
                answer.complete(new DataPlane.Response(id, status, logIndex, body));
            }
        };
    }

    private void start() throws Exception {
        Map<String, String> voters = new LinkedHashMap<>();
        for (int i = 0; i < 3; i++) voters.put("m" + i, "127.0.0.1:" + freePort());
        for (int i = 0; i < 3; i++) {
            ReplicasetStateMachine state = new ReplicasetStateMachine(dir.resolve("m" + i).resolve("db"), 1 << 20, System::currentTimeMillis);
            states.add(state);
            Replica replica = MicroRaftReplicas.start(ReplicaConfig.defaults("rs1", "m" + i, voters, dir.resolve("m" + i).resolve("replica")),
                    state, null);
            replicas.add(replica);
            members.add(new ReplicaAccess(replica, System::currentTimeMillis));
        }
    }

    private int leaderIndex() {
        for (int i = 0; i < replicas.size(); i++) if (replicas.get(i).status().leads()) return i;
        return -1;
    }

    private DataPlane.Response call(int member, long callId, byte type, byte[] payload) throws Exception {
        CompletableFuture<DataPlane.Response> answer = new CompletableFuture<>();
        members.get(member).handle(responses(answer), callId, ROUTER, type, payload);
        return answer.get(10, TimeUnit.SECONDS);
    }

    private static byte[] incr() {
        return StorageRequest.write(List.of(new KvOp(KvOp.Type.INCRBY, 1, KEY, null, 1, 0)));
    }

    private static long number(DataPlane.Response response) {
        assertThat(response.status()).as(response.text()).isEqualTo(DataPlane.OK);
        OpResult result = OpCodec.decodeResults(response.body()).get(0);
        return result.number();
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
