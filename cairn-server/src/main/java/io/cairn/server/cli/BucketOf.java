package io.cairn.server.cli;

import io.cairn.core.BucketHasher;
import io.cairn.core.BucketState;
import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.server.admin.AdminClient;
import io.cairn.server.admin.AdminHttps;
import io.cairn.server.config.ClusterConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code cairn bucket of KEY}: the bucket of a key (as Redis's CLUSTER KEYSLOT gives a slot) and
 * who serves it now. The bucket id is computed here from the config's bucket count, so it prints
 * even when the cluster is down; the owner, its state and its Raft leader come from the cluster
 * (the coordinator leader's view of every replicaset's record, then the owner's members' /info).
 */
@Command(name = "of", mixinStandardHelpOptions = true,
        description = "Print the bucket of a key, the replicaset that owns it, its state and that replicaset's leader.")
final class BucketOf implements Callable<Integer> {
    private static final Duration MEMBER_TIMEOUT = Duration.ofSeconds(2);

    @Mixin ClusterAccess access;
    @Parameters(index = "0", description = "the key (as a client sends it; the text inside its first {...} decides the bucket)") String key;
    @Spec CommandSpec spec;

    @Override
    public Integer call() {
        ClusterConfig c = access.load();
        PrintWriter out = spec.commandLine().getOut();
        int bucket = BucketHasher.bucketOf(key.getBytes(StandardCharsets.UTF_8), c.topology().bucketCount());
        out.printf("key %s: bucket %d of %d (shard key \"%s\")%n", key, bucket, c.topology().bucketCount(), shardKey(key));
        out.flush();
        // throws UNAVAILABLE (one line, exit 2) when no coordinator leader answers: the bucket id above still stands
        Map<String, Object> records = BucketCommand.records(c, bucket);
        Optional<Map.Entry<String, Object>> owner = records.entrySet().stream().filter(e -> servesWrites(e.getValue())).findFirst();
        if (owner.isEmpty()) {
            out.printf("owner: none (no replicaset holds bucket %d as writable now; records: %s)%n", bucket, records);
        } else {
            String rs = owner.get().getKey();
            out.printf("owner: %s, %s, leader %s%n", rs, owner.get().getValue(), leaderOf(c, rs));
        }
        records.forEach((rs, record) -> {
            if (owner.isEmpty() || !owner.get().getKey().equals(rs)) out.printf("also on %s: %s%n", rs, record);
        });
        out.flush();
        return 0;
    }

    /** The text inside the first non-empty {...} of the key, else the key (the rule of {@link BucketHasher}). */
    static String shardKey(String key) {
        int open = key.indexOf('{');
        int close = open < 0 ? -1 : key.indexOf('}', open + 1);
        return open >= 0 && close > open + 1 ? key.substring(open + 1, close) : key;
    }

    /** A record as the coordinator describes it ("ACTIVE generation 3 ..."): whether its state takes writes. */
    private static boolean servesWrites(Object record) {
        String state = String.valueOf(record).split(" ", 2)[0];
        for (BucketState s : BucketState.values()) if (s.name().equals(state)) return s.servesWrites();
        return false;
    }

    /** "s1-2 (127.0.0.1:7411)" for the member whose /info says LEADER, or why none is named. */
    private static String leaderOf(ClusterConfig c, String replicaset) {
        ReplicasetSpec rs = c.topology().replicasets().stream().filter(r -> r.id().equals(replicaset)).findFirst().orElse(null);
        if (rs == null) return "unknown (replicaset " + replicaset + " is not in the config file; see cairn topology show)";
        for (NodeAddress n : rs.nodes()) {
            Map<String, Object> info = AdminClient.getJson(AdminHttps.base(n.host(), n.adminPort()) + "/info", MEMBER_TIMEOUT);
            if (info != null && "LEADER".equals(info.get("raftRole"))) return n.id() + " (" + n.host() + ":" + n.adminPort() + ")";
        }
        return "NONE (no member answers as leader: an election, or a majority down; see cairn status)";
    }
}
