package io.cairn.replication.microraft;

import io.cairn.replication.ReadPolicy;
import io.cairn.replication.Replica;
import io.cairn.replication.ReplicaStatus;
import io.cairn.replication.ReplicationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

class CoreReplicaTest {
    @TempDir
    Path dir;

    private TestGroup group;

    @AfterEach
    void stop() {
        if (group != null) group.close();
    }

    private TestGroup started() throws IOException {
        group = new TestGroup("g", dir, 3, 1_000_000);
        group.startAll();
        return group;
    }

    @Test
    @Timeout(30)
    void threeMembersCommitApplyAndRead() throws Exception {
        started();
        String leader = group.awaitLeader();
        List<String> commands = TestGroup.commands("a", 40);
        List<String> replies = group.propose(leader, commands);

        // each reply is the state machine's answer for that entry, in log order
        long first = Long.parseLong(replies.get(0).substring("applied:".length()));
        for (int i = 0; i < replies.size(); i++) assertThat(replies.get(i)).isEqualTo("applied:" + (first + i));
        await().atMost(5, TimeUnit.SECONDS).until(() -> group.runningIds().stream().allMatch(id -> group.machine(id).commands().equals(commands)));
        var history = group.machine(leader).history();
        for (String id : group.runningIds()) assertThat(group.machine(id).history()).isEqualTo(history);
        long term = group.replica(leader).status().term();
        assertThat(history.lastEntry().getValue()).startsWith(term + " "); // the entry's term reaches apply

        assertThat(read(leader, "a-39", ReadPolicy.LINEARIZABLE)).isEqualTo(Long.toString(first + 39));
        assertThat(read(leader, "a-0", ReadPolicy.LEADER_LEASE)).isEqualTo(Long.toString(first));
        String follower = followerOf(leader);
        await().atMost(5, TimeUnit.SECONDS).until(() -> read(follower, "a-39", ReadPolicy.BOUNDED_STALE).equals(Long.toString(first + 39)));
        assertThatThrownBy(() -> read(follower, "a-1", ReadPolicy.LINEARIZABLE)).hasCauseInstanceOf(ReplicationException.NotLeader.class);

        ReplicaStatus ls = group.replica(leader).status();
        assertThat(ls.role()).isEqualTo(ReplicaStatus.Role.LEADER);
        assertThat(ls.leaderId()).isEqualTo(leader);
        assertThat(ls.appliedIndex()).isGreaterThanOrEqualTo(first + 39);
        assertThat(ls.msSinceLeader()).isZero();
        ReplicaStatus fs = group.replica(follower).status();
        assertThat(fs.role()).isEqualTo(ReplicaStatus.Role.FOLLOWER);
        assertThat(fs.leaderId()).isEqualTo(leader);
        assertThat(fs.term()).isEqualTo(ls.term());
        assertThat(fs.msSinceLeader()).isLessThan(TestGroup.LEADER_TIMEOUT.toMillis());
    }

    @Test
    @Timeout(30)
    void followerRefusesWithTheLeadersIdAndOversizedEntriesAreRefused() throws Exception {
        started();
        String leader = group.awaitLeader();
        String follower = followerOf(leader);
        await().atMost(5, TimeUnit.SECONDS).until(() -> leader.equals(group.replica(follower).status().leaderId()));

        ExecutionException e = catchExecution(() -> group.replica(follower).propose(bytes("x")).get(5, TimeUnit.SECONDS));
        assertThat(e.getCause()).isInstanceOf(ReplicationException.NotLeader.class);
        assertThat(((ReplicationException.NotLeader) e.getCause()).leaderId()).isEqualTo(leader);

        ExecutionException big = catchExecution(() -> group.replica(leader).propose(new byte[(64 << 10) + 1]).get(5, TimeUnit.SECONDS));
        assertThat(big.getCause()).isInstanceOf(ReplicationException.Refused.class);
        assertThat(group.propose(leader, List.of("after"))).hasSize(1); // the leader goes on
    }

    @Test
    @Timeout(40)
    void aNewLeaderTakesOverAndNoAcknowledgedWriteIsLost() throws Exception {
        started();
        String leader = group.awaitLeader();
        List<String> acknowledged = new ArrayList<>(TestGroup.commands("before", 30));
        group.propose(leader, acknowledged);
        List<String> inFlight = TestGroup.commands("in-flight", 50);
        List<CompletableFuture<byte[]>> outcomes = new ArrayList<>();
        for (String c : inFlight) outcomes.add(group.replica(leader).propose(bytes(c)));
        group.stop(leader); // some of these may be committed, some not: each either succeeded or says it cannot tell
        for (int i = 0; i < inFlight.size(); i++) {
            try {
                outcomes.get(i).get(10, TimeUnit.SECONDS);
                acknowledged.add(inFlight.get(i));
            } catch (ExecutionException e) {
                assertThat(e.getCause()).isInstanceOfAny(ReplicationException.Indeterminate.class, ReplicationException.NotLeader.class);
            }
        }

        long stoppedAt = System.nanoTime();
        String next = group.awaitLeader();
        assertThat(next).isNotEqualTo(leader);
        assertThat(Duration.ofNanos(System.nanoTime() - stoppedAt)).isLessThan(Duration.ofSeconds(8));
        await().atMost(5, TimeUnit.SECONDS).until(() -> group.internals(next).droppedMessages() > 0); // to the stopped one, counted
        List<String> more = TestGroup.commands("after", 30);
        group.propose(next, more);
        acknowledged.addAll(more);
        for (String id : group.runningIds()) {
            await().atMost(5, TimeUnit.SECONDS).until(() -> group.machine(id).commands().containsAll(acknowledged));
            assertThat(group.machine(id).reapplied()).isZero();
        }
    }

    @Test
    @Timeout(40)
    void aRestartedMemberCatchesUpWithoutApplyingTwice() throws Exception {
        started();
        String leader = group.awaitLeader();
        String follower = followerOf(leader);
        group.propose(leader, TestGroup.commands("first", 20));
        await().atMost(5, TimeUnit.SECONDS).until(() -> group.machine(follower).commands().size() == 20);
        group.stop(follower);

        group.propose(leader, TestGroup.commands("second", 20));
        Replica restarted = group.start(follower);
        RecordingStateMachine sm = group.machine(follower);
        assertThat(sm.commands()).hasSize(20); // what it wrote before the stop, read back from its folder
        await().atMost(10, TimeUnit.SECONDS).until(() -> sm.commands().size() == 40);
        assertThat(sm.history()).isEqualTo(group.machine(leader).history());
        assertThat(sm.reapplied()).isZero(); // the replayed log skipped what the state machine had
        assertThat(restarted.status().role()).isEqualTo(ReplicaStatus.Role.FOLLOWER);
    }

    @Test
    @Timeout(30)
    void aLeaseReadRunsOnTheCallersThreadAndEndsWhenTheLeaderLosesItsMajority() throws Exception {
        started();
        String leader = group.awaitLeader();
        group.propose(leader, List.of("w"));
        String caller = Thread.currentThread().getName();
        // the write's appends were answered just now: the lease holds, and the read needs no Raft thread
        assertThat(read(leader, "w", ReadPolicy.LEADER_LEASE)).matches("\\d+");
        assertThat(group.machine(leader).lastQueryThread()).isEqualTo(caller);

        for (String id : group.runningIds()) if (!id.equals(leader)) group.stop(id);
        long stoppedAt = System.nanoTime();
        await().atMost(10, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(50)).until(() -> {
            try {
                read(leader, "w", ReadPolicy.LEADER_LEASE);
                return false;
            } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                return true;
            }
        });
        // no later than the lease allows: other members could elect a leader once their window (the leader timeout) ends
        assertThat(Duration.ofNanos(System.nanoTime() - stoppedAt)).isLessThan(TestGroup.LEADER_TIMEOUT.plusSeconds(5));
    }

    @Test
    @Timeout(30)
    void aRestartedMemberStaysOutOfElectionsForOneFollowerWindow() throws Exception {
        started();
        String leader = group.awaitLeader();
        String follower = followerOf(leader);
        group.propose(leader, List.of("w"));
        for (String id : group.runningIds()) group.stop(id);
        // two of three back: the first to come back must not be elected before its window (the leader timeout) ends,
        // as a leader may have counted on it for a lease just before it went down
        long restartedAt = System.nanoTime();
        group.start(follower);
        group.start(leader);
        String elected = group.awaitLeader();
        assertThat(Duration.ofNanos(System.nanoTime() - restartedAt)).isGreaterThanOrEqualTo(TestGroup.LEADER_TIMEOUT);
        assertThat(read(elected, "w", ReadPolicy.LINEARIZABLE)).matches("\\d+");
    }

    @Test
    @Timeout(30)
    void aFollowerCutOffFromItsLeaderRefusesBoundedStaleReads() throws Exception {
        started();
        String leader = group.awaitLeader();
        String follower = followerOf(leader);
        group.propose(leader, List.of("w"));
        await().atMost(5, TimeUnit.SECONDS).until(() -> read(follower, "w", ReadPolicy.BOUNDED_STALE).matches("\\d+"));
        for (String id : group.runningIds()) if (!id.equals(follower)) group.stop(id);

        await().atMost(10, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(100)).until(() -> {
            try {
                read(follower, "w", ReadPolicy.BOUNDED_STALE);
                return false;
            } catch (ExecutionException e) {
                return e.getCause() instanceof ReplicationException.NotLeader;
            }
        });
    }

    @Test
    @Timeout(30)
    void malformedAndOversizedFramesCloseTheConnectionAndTheMemberGoesOn() throws Exception {
        started();
        String leader = group.awaitLeader();
        String follower = followerOf(leader);
        int port = Integer.parseInt(group.voters.get(follower).split(":")[1]);

        assertClosedAfterSending(port, ByteBuffer.allocate(8).putInt(Integer.MAX_VALUE).putInt(7).array()); // a frame far past the limit
        assertClosedAfterSending(port, ByteBuffer.allocate(4).putInt(4096).array()); // larger than any hello
        assertClosedAfterSending(port, ByteBuffer.allocate(12).putInt(8).putInt(0xBAD).putInt(0).array()); // no hello
        byte[] hello = helloFrame("g", "stranger");
        assertClosedAfterSending(port, helloFrame("another-group", "m9"));
        byte[] junk = ByteBuffer.allocate(8).putInt(4).put(new byte[] {42, 0, 1, 7}).array(); // an unknown message type
        assertClosedAfterSending(port, concat(hello, junk));
        assertClosedAfterSending(port, concat(hello, ByteBuffer.allocate(4).putInt(3 << 20).array())); // past the limit after a hello
        await().atMost(5, TimeUnit.SECONDS).until(() -> group.internals(follower).refusedConnections() == 6);

        List<String> after = TestGroup.commands("after", 10);
        group.propose(leader, after);
        await().atMost(5, TimeUnit.SECONDS).until(() -> group.machine(follower).commands().containsAll(after));
    }

    private static void assertClosedAfterSending(int port, byte[] bytes) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write(bytes);
            out.flush();
            InputStream in = s.getInputStream();
            try {
                assertThat(in.read()).isEqualTo(-1);
            } catch (SocketTimeoutException e) {
                throw new AssertionError("the member kept the connection open", e);
            } catch (IOException reset) {
                // closed while data was unread: a reset also ends the connection
            }
        }
    }

    private static byte[] helloFrame(String group, String sender) {
        byte[] g = group.getBytes(StandardCharsets.UTF_8);
        byte[] s = sender.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(4 + 4 + 2 + g.length + 2 + s.length);
        b.putInt(4 + 2 + g.length + 2 + s.length).putInt(WireCodec.HELLO_MAGIC).putShort((short) g.length).put(g).putShort((short) s.length).put(s);
        return b.array();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        return ByteBuffer.allocate(a.length + b.length).put(a).put(b).array();
    }

    private String followerOf(String leader) {
        return group.runningIds().stream().filter(id -> !id.equals(leader)).findFirst().orElseThrow();
    }

    private String read(String member, String query, ReadPolicy policy) throws Exception {
        return new String(group.replica(member).read(bytes(query), policy).get(5, TimeUnit.SECONDS), StandardCharsets.UTF_8);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    interface Call {
        void run() throws Exception;
    }

    private static ExecutionException catchExecution(Call call) throws Exception {
        try {
            call.run();
        } catch (ExecutionException e) {
            return e;
        }
        throw new AssertionError("expected a failure");
    }
}
