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

    static List<String> engines() {
        return StreamSupport.stream(Engines.names().spliterator(), false).toList();
    }

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
            Member leader = await().atMost(Duration.ofSeconds(30)).until(() -> leaderOf(members), m -> m != null);

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

    private static Member leaderOf(List<Member> members) {
        List<Member> leaders = members.stream().filter(Member::isLeader).toList();
        return leaders.size() == 1 ? leaders.get(0) : null;
    }
}
