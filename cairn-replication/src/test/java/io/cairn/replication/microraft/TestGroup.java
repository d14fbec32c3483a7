package io.cairn.replication.microraft;

import io.cairn.replication.Replica;
import io.cairn.replication.ReplicaConfig;
import io.cairn.replication.ReplicaStatus;
import io.netty.channel.EventLoopGroup;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/**
 * Members of one group on 127.0.0.1 for tests, each with its folder under {@code root} and a
 * {@link RecordingStateMachine}; members can be stopped and started again on the same folder and port.
 */
final class TestGroup implements AutoCloseable {
    static final Duration ELECTION_TIMEOUT = Duration.ofMillis(500);
    static final Duration LEADER_TIMEOUT = Duration.ofSeconds(2);

    private final String groupId;
    private final Path root;
    private final int snapshotEvery;
    final Map<String, String> voters = new LinkedHashMap<>();
    private final Map<String, String> learners = new LinkedHashMap<>();
    private final Map<String, Replica> running = new LinkedHashMap<>();
    private final Map<String, RecordingStateMachine> machines = new LinkedHashMap<>();
    /** Largest command a member takes (its frames carry up to about this much). */
    int maxEntryBytes = 64 << 10;
    /** id -> "host:port" other members reach that member at instead of its own address (a relay in between). */
    final Map<String, String> reachedAt = new LinkedHashMap<>();
    /** Event loops shared by every member, or null for each member's own. */
    EventLoopGroup sharedLoops;

    TestGroup(String groupId, Path root, int members, int snapshotEvery) throws IOException {
        this(groupId, root, members, snapshotEvery, "");
    }

    /** @param idSuffix after each member's id ("m0", "m1", ...), e.g. the disk of a member back on a new one */
    TestGroup(String groupId, Path root, int members, int snapshotEvery, String idSuffix) throws IOException {
        this.groupId = groupId;
        this.root = root;
        this.snapshotEvery = snapshotEvery;
        List<Integer> ports = freePorts(members);
        for (int i = 0; i < members; i++) voters.put("m" + i + idSuffix, "127.0.0.1:" + ports.get(i));
    }

    void startAll() throws IOException {
        for (String id : voters.keySet()) start(id);
    }

    Replica start(String id) throws IOException {
        return start(id, ReplicaConfig.Vote.AT_ONCE);
    }

    /** Starts {@code id} as a member back on a new or damaged folder ({@link ReplicaConfig.Vote#AFTER_CATCH_UP}). */
    Replica startRejoining(String id) throws IOException {
        return start(id, ReplicaConfig.Vote.AFTER_CATCH_UP);
    }

    Replica start(String id, ReplicaConfig.Vote vote) throws IOException {
        Map<String, String> asLearner = learners.containsKey(id) ? Map.of(id, learners.get(id)) : Map.of();
        ReplicaConfig config = new ReplicaConfig(groupId, id, asLearner.isEmpty() ? votersSeenBy(id) : votersWithout(id), asLearner,
                root.resolve(id), ELECTION_TIMEOUT, LEADER_TIMEOUT, snapshotEvery, ReplicaConfig.DEFAULT_MAX_PENDING_ENTRIES, maxEntryBytes,
                vote);
        RecordingStateMachine sm = new RecordingStateMachine(root.resolve(id).resolve("state"));
        Replica r = MicroRaftReplicas.start(config, sm, sharedLoops);
        running.put(id, r);
        machines.put(id, sm);
        return r;
    }

    /** A new member, not among the first voters, that joins as a learner. */
    String addJoiner(String id) throws IOException {
        String address = "127.0.0.1:" + freePorts(1).get(0);
        learners.put(id, address);
        return address;
    }

    /** The voters' addresses as {@code id} dials them: its own, and the others' through {@link #reachedAt}. */
    private Map<String, String> votersSeenBy(String id) {
        Map<String, String> v = new LinkedHashMap<>(voters);
        reachedAt.forEach((member, address) -> {
            if (!member.equals(id)) v.put(member, address);
        });
        return v;
    }

    private Map<String, String> votersWithout(String id) {
        Map<String, String> v = new LinkedHashMap<>(voters);
        v.remove(id);
        return v;
    }

    void stop(String id) {
        Replica r = running.remove(id);
        if (r != null) r.close();
    }

    Replica replica(String id) {
        return running.get(id);
    }

    MicroRaftReplica internals(String id) {
        return (MicroRaftReplica) running.get(id);
    }

    RecordingStateMachine machine(String id) {
        return machines.get(id);
    }

    List<String> runningIds() {
        return new ArrayList<>(running.keySet());
    }

    /**
     * Waits for one running member to lead (with its term's first entry applied) and every other
     * running member to follow it in its term, and returns its id. Right after a start two members
     * may stand in the same term; the loser's next term would unseat a leader found too early.
     */
    String awaitLeader() {
        String[] leader = new String[1];
        await().atMost(10, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(20)).until(() -> {
            for (Map.Entry<String, Replica> e : running.entrySet()) {
                ReplicaStatus s = e.getValue().status();
                if (s.role() == ReplicaStatus.Role.LEADER && running.values().stream().map(Replica::status)
                        .allMatch(o -> e.getKey().equals(o.leaderId()) && o.term() == s.term())) {
                    leader[0] = e.getKey();
                    return true;
                }
            }
            return false;
        });
        return leader[0];
    }

    /** Proposes {@code commands} at {@code leader} one batch at a time and returns the replies. */
    List<String> propose(String leader, List<String> commands) throws Exception {
        List<java.util.concurrent.CompletableFuture<byte[]>> futures = new ArrayList<>();
        for (String c : commands) futures.add(replica(leader).propose(c.getBytes(StandardCharsets.UTF_8)));
        List<String> replies = new ArrayList<>();
        for (var f : futures) replies.add(new String(f.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8));
        return replies;
    }

    static List<String> commands(String prefix, int n) {
        List<String> c = new ArrayList<>();
        for (int i = 0; i < n; i++) c.add(prefix + "-" + i);
        return c;
    }

    @Override
    public void close() {
        for (String id : new ArrayList<>(running.keySet())) stop(id);
    }

    static List<Integer> freePorts(int n) throws IOException {
        List<ServerSocket> held = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) held.add(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
            return held.stream().map(ServerSocket::getLocalPort).toList();
        } finally {
            for (ServerSocket s : held) s.close();
        }
    }
}
