package io.cairn.raftbench.jgroupsraft;

import io.cairn.raftbench.Member;
import io.cairn.raftbench.MemberSpec;
import io.cairn.raftbench.RocksApplier;
import io.cairn.raftbench.Workload;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** A candidate of the comparison only, not shipped: runs with {@code -Dcairn.raftbench.allEngines=true} (EngineContractTest). */
class JGroupsRaftEngineTest {
    private static final int WRITES = 20;

    @BeforeAll
    static void onlyWhenEveryEngineIsChecked() {
        assumeTrue(Boolean.getBoolean("cairn.raftbench.allEngines"), "JGroups-raft is checked with -Dcairn.raftbench.allEngines=true");
    }

    @TempDir
    Path dir;

    private List<InetSocketAddress> peers;
    private final List<RocksApplier> appliers = new ArrayList<>();
    private final List<JGroupsRaftMember> members = new ArrayList<>();

    @Test
    void theStackListensOnTheMembersLoopbackPortOnlyAndLogsDurably() {
        MemberSpec spec = new MemberSpec(1, List.of(new InetSocketAddress("127.0.0.1", 7001), new InetSocketAddress("127.0.0.1", 7002),
                new InetSocketAddress("127.0.0.1", 7003)), dir.resolve("raft"), null);
        String config = JGroupsRaftEngine.config(spec);
        assertThat(config).contains("<TCP bind_addr=\"127.0.0.1\" bind_port=\"7002\" port_range=\"0\" diag.enabled=\"false\"")
                .contains("initial_hosts=\"127.0.0.1[7001],127.0.0.1[7002],127.0.0.1[7003]\" port_range=\"0\"")
                .contains("raft_id=\"m1\" members=\"m0,m1,m2\"").contains("log_use_fsync=\"true\"")
                .contains("log_class=\"" + SyncedVoteFileLog.class.getName() + "\"")
                .doesNotContain("UDP").doesNotContain("MPING").doesNotContain("FD_SOCK").doesNotContain("CLIENT");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void threeMembersCommitDurablyApplyAtTheirLogIndexAndLeaveNoThreadOrPortBehind() throws Exception {
        assertThat(new JGroupsRaftEngine().name()).isEqualTo("jgroups-raft");
        org.rocksdb.RocksDB.loadLibrary(); // its loader runs `ldd` once, leaving a JDK "process reaper" thread: not the group's
        Set<Thread> before = new HashSet<>(Thread.getAllStackTraces().keySet());
        startGroup();
        for (JGroupsRaftMember m : members) {
            assertThat(m.raft().logUseFsync()).isTrue();
            assertThat(m.raft().logDescription()).contains(SyncedVoteFileLog.class.getSimpleName());
        }
        JGroupsRaftMember leader = awaitLeader();
        JGroupsRaftMember follower = members.stream().filter(m -> m != leader).findFirst().orElseThrow();
        proposeInBatches(leader, 20, 10);
        assertThatThrownBy(() -> follower.propose(Workload.entry(WRITES)).get(5, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class);

        long total = 200L * WRITES;
        awaitTrue(() -> appliers.stream().allMatch(a -> a.appliedWrites() == total), 10_000, "every member applying " + total + " writes");
        for (int i = 0; i < 3; i++) {
            // the counted index is RAFT's: 200 entries, no other entry in the log
            assertThat(appliers.get(i).appliedIndex()).isEqualTo(200).isEqualTo(members.get(i).raft().commitIndex());
            assertThat(members.get(i).raft().lastAppended()).isEqualTo(200);
            assertThat(Files.size(dir.resolve("m" + i).resolve("raft").resolve("m" + i + ".log").resolve("entries.raft"))).isGreaterThan(0);
        }

        closeGroup();
        for (InetSocketAddress p : peers) {
            try (ServerSocket s = new ServerSocket(p.getPort(), 50, InetAddress.getLoopbackAddress())) {
                assertThat(s.isBound()).isTrue();
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!startedSince(before).isEmpty() && System.nanoTime() < deadline) Thread.sleep(50);
        assertThat(startedSince(before)).as("threads the group started, alive after close").isEmpty();
    }

    /** Live threads not in {@code before}, but for JUnit's own timeout watcher (started lazily by {@link Timeout}). */
    private static List<String> startedSince(Set<Thread> before) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> !before.contains(t) && t.isAlive())
                .map(Thread::getName).filter(n -> !n.startsWith("junit-jupiter-timeout-watcher")).toList();
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void restartedMembersReplayTheirLogsAtTheSameIndexesAndGoOn() throws Exception {
        startGroup();
        proposeInBatches(awaitLeader(), 5, 10);
        awaitTrue(() -> appliers.stream().allMatch(a -> a.appliedWrites() == 50L * WRITES), 10_000, "every member applying 50 entries");
        closeGroup();

        startGroup(); // same folders, new ports: each member reopens its log and replays it (RocksDB has it all: skipped)
        for (RocksApplier a : appliers) assertThat(a.appliedWrites()).isZero();
        JGroupsRaftMember leader = awaitLeader();
        proposeInBatches(leader, 5, 10);
        awaitTrue(() -> appliers.stream().allMatch(a -> a.appliedWrites() == 50L * WRITES), 10_000, "every member applying 50 new entries");
        for (int i = 0; i < 3; i++) {
            assertThat(appliers.get(i).appliedIndex()).isEqualTo(100).isEqualTo(members.get(i).raft().commitIndex());
        }
    }

    @AfterEach
    void closeGroup() throws Exception {
        for (Member m : members) m.close();
        for (RocksApplier a : appliers) a.close();
        members.clear();
        appliers.clear();
    }

    private void startGroup() throws Exception {
        peers = freeLoopbackPorts(3);
        JGroupsRaftEngine engine = new JGroupsRaftEngine();
        for (int i = 0; i < 3; i++) {
            RocksApplier applier = new RocksApplier(dir.resolve("m" + i).resolve("db"));
            appliers.add(applier);
            members.add((JGroupsRaftMember) engine.start(new MemberSpec(i, peers, dir.resolve("m" + i).resolve("raft"), applier)));
        }
    }

    private JGroupsRaftMember awaitLeader() throws InterruptedException {
        awaitTrue(() -> members.stream().anyMatch(Member::isLeader), 30_000, "leader");
        return members.stream().filter(Member::isLeader).findFirst().orElseThrow();
    }

    /** Proposes {@code batches} times {@code perBatch} entries, each batch waiting for the one before it to commit. */
    private static void proposeInBatches(Member leader, int batches, int perBatch) throws Exception {
        for (int b = 0; b < batches; b++) {
            List<CompletableFuture<Void>> batch = new ArrayList<>();
            for (int i = 0; i < perBatch; i++) batch.add(leader.propose(Workload.entry(WRITES)));
            CompletableFuture.allOf(batch.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
            assertThat(batch).allMatch(f -> f.isDone() && !f.isCompletedExceptionally());
        }
    }

    private static void awaitTrue(BooleanSupplier condition, long millis, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("no " + what + " within " + millis + " ms");
            Thread.sleep(20);
        }
    }

    private static List<InetSocketAddress> freeLoopbackPorts(int n) throws IOException {
        List<ServerSocket> held = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) held.add(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
            return held.stream().map(s -> new InetSocketAddress("127.0.0.1", s.getLocalPort())).toList();
        } finally {
            for (ServerSocket s : held) s.close();
        }
    }
}
