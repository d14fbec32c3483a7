package io.cairn.raftbench.microraft;

import io.cairn.raftbench.Member;
import io.cairn.raftbench.MemberSpec;
import io.cairn.raftbench.RocksApplier;
import io.cairn.raftbench.Workload;
import io.microraft.exception.NotLeaderException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MicroRaftEngineTest {
    private static final int WRITES = 20;

    @TempDir
    Path dir;

    private final List<RocksApplier> appliers = new ArrayList<>();
    private final List<MicroRaftMember> members = new ArrayList<>();

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void threeMembersCommitDurablyAndApplyEverywhere() throws Exception {
        assertThat(new MicroRaftEngine().name()).isEqualTo("microraft");
        startGroup();
        MicroRaftMember leader = awaitLeader();
        MicroRaftMember follower = members.stream().filter(m -> m != leader).findFirst().orElseThrow();
        long forcesBefore = leader.forces();

        int batches = 20;
        proposeInBatches(leader, batches, 10);

        assertThatThrownBy(() -> follower.propose(Workload.entry(WRITES)).get(5, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class);

        long total = 200L * WRITES;
        awaitTrue(() -> appliers.stream().allMatch(a -> a.appliedWrites() == total), 10_000, "every member applying " + total + " writes");
        for (RocksApplier a : appliers) assertThat(a.appliedWrites()).isEqualTo(total);

        // Each batch waited for its commit, which needs the entries forced on a majority: the
        // leader forces before it counts itself, a follower before it acknowledges.
        assertThat(leader.forces() - forcesBefore).isGreaterThanOrEqualTo(batches);
        for (MicroRaftMember m : members) {
            assertThat(m.entriesPersisted()).isGreaterThanOrEqualTo(200);
            if (m != leader) assertThat(m.forces()).isGreaterThanOrEqualTo(batches);
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void restartedMembersRecoverTheirLogsAndGoOn() throws Exception {
        startGroup();
        proposeInBatches(awaitLeader(), 5, 10);
        awaitTrue(() -> appliers.stream().allMatch(a -> a.appliedWrites() == 50L * WRITES), 10_000, "every member applying 50 entries");
        long appliedIndex = appliers.get(0).appliedIndex();
        closeGroup();

        startGroup(); // same folders, new ports: each member restores its term, vote and log
        proposeRetryingRefused(5, 10);
        // Entries replayed from the restored logs are at or below the applied index RocksDB kept: skipped.
        awaitTrue(() -> appliers.stream().allMatch(a -> a.appliedWrites() == 50L * WRITES), 10_000, "every member applying 50 new entries");
        for (RocksApplier a : appliers) assertThat(a.appliedIndex()).isGreaterThan(appliedIndex + 50);
        for (MicroRaftMember m : members) assertThat(m.entriesPersisted()).isGreaterThanOrEqualTo(50);
    }

    @AfterEach
    void closeGroup() throws Exception {
        for (Member m : members) m.close();
        for (RocksApplier a : appliers) a.close();
        members.clear();
        appliers.clear();
    }

    private void startGroup() throws Exception {
        List<InetSocketAddress> peers = freeLoopbackPorts(3);
        MicroRaftEngine engine = new MicroRaftEngine();
        for (int i = 0; i < 3; i++) {
            RocksApplier applier = new RocksApplier(dir.resolve("m" + i).resolve("db"));
            appliers.add(applier);
            members.add((MicroRaftMember) engine.start(new MemberSpec(i, peers, dir.resolve("m" + i).resolve("raft"), applier)));
        }
    }

    private MicroRaftMember awaitLeader() throws InterruptedException {
        awaitTrue(() -> members.stream().anyMatch(Member::isLeader), 10_000, "leader");
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

    /**
     * Like {@link #proposeInBatches}, but a restarted group may elect again under load (CI's two busy
     * cores): entries a member refused as not the leader (nothing appended) go to the next leader.
     */
    private void proposeRetryingRefused(int batches, int perBatch) throws Exception {
        for (int b = 0; b < batches; b++) {
            int left = perBatch;
            for (int attempt = 1; left > 0; attempt++) {
                Member leader = awaitLeader();
                List<CompletableFuture<Void>> batch = new ArrayList<>();
                for (int i = 0; i < left; i++) batch.add(leader.propose(Workload.entry(WRITES)));
                left = 0;
                for (CompletableFuture<Void> f : batch) {
                    try {
                        f.get(10, TimeUnit.SECONDS);
                    } catch (ExecutionException e) {
                        if (!(e.getCause() instanceof NotLeaderException) || attempt >= 10) throw e;
                        left++;
                    }
                }
            }
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
