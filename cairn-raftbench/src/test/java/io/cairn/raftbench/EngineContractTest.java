package io.cairn.raftbench;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.StreamSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What the comparison relies on, for every engine it knows: a three-member group over loopback
 * elects one leader, commits what the leader accepts, applies it on all three members in full, and
 * refuses a proposal made to a follower. A figure from an engine that fails this means nothing.
 */
class EngineContractTest {
    private static final int ENTRIES = 200;
    private static final int WRITES_PER_ENTRY = 20;

    /**
     * {@code mvn verify} checks the engines Cairn ships (Ratis and MicroRaft); every candidate of the
     * comparison with {@code -Dcairn.raftbench.allEngines=true} (docs/raft-engines.md: run it before a
     * comparison that includes them).
     */
    static List<String> engines() {
        List<String> all = StreamSupport.stream(Engines.names().spliterator(), false).toList();
        return Boolean.getBoolean(ALL_ENGINES) ? all : all.stream().filter(SHIPPED::contains).toList();
    }

    static final String ALL_ENGINES = "cairn.raftbench.allEngines";
    private static final List<String> SHIPPED = List.of("ratis", "microraft");

    @ParameterizedTest(name = "{0}")
    @MethodSource("engines")
    void aGroupCommitsWhatItsLeaderAcceptsAndAppliesItOnEveryMember(String name, @TempDir Path dir) throws Exception {
        Engine engine = Engines.byName(name);
        List<InetSocketAddress> peers = Ports.loopback(3);
        List<RocksApplier> appliers = new ArrayList<>();
        List<Member> members = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                RocksApplier applier = new RocksApplier(dir.resolve("m" + i).resolve("db"));
                appliers.add(applier);
                members.add(engine.start(new MemberSpec(i, peers, dir.resolve("m" + i).resolve("raft"), applier)));
            }
            Member leader = stableLeader(members);

            List<CompletableFuture<Void>> proposals = new ArrayList<>();
            for (int i = 0; i < ENTRIES; i++) proposals.add(leader.propose(Workload.entry(WRITES_PER_ENTRY)));
            CompletableFuture.allOf(proposals.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            assertThat(appliers.get(members.indexOf(leader)).appliedWrites())
                    .as("the leader applied every acknowledged entry before acknowledging it").isEqualTo(ENTRIES * WRITES_PER_ENTRY);

            Member follower = members.stream().filter(m -> m != leader).findFirst().orElseThrow();
            assertThatThrownBy(() -> follower.propose(Workload.entry(1)).get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class);

            await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                    assertThat(appliers.stream().mapToLong(RocksApplier::appliedWrites).toArray())
                            .as("writes applied per member").containsOnly((long) ENTRIES * WRITES_PER_ENTRY));
        } finally {
            for (Member m : members) m.close();
            for (RocksApplier a : appliers) a.close();
        }
    }

    /**
     * The one leader once it has led for two seconds: right after a start two members may stand, and a
     * leader found at once can be unseated by the other's next term (its proposals then fail as indeterminate).
     */
    private static Member stableLeader(List<Member> members) {
        Member[] seen = {null};
        long[] since = {0};
        return await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(50)).until(() -> {
            Member now = leaderOf(members);
            long t = System.nanoTime();
            if (now == null || now != seen[0]) {
                seen[0] = now;
                since[0] = t;
                return null;
            }
            return t - since[0] >= TimeUnit.SECONDS.toNanos(2) ? now : null;
        }, m -> m != null);
    }

    private static Member leaderOf(List<Member> members) {
        List<Member> leaders = members.stream().filter(Member::isLeader).toList();
        return leaders.size() == 1 ? leaders.get(0) : null;
    }
}
