package io.cairn.server;

import io.cairn.server.config.ClusterConfig;
import io.cairn.server.config.ConfigLoader;
import io.cairn.server.process.LocalCluster;
import io.cairn.server.process.Ports;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** Writes local-cluster configs on free loopback ports for tests. */
public final class TestClusters {
    static {
        // A bind failure inside Ratis must fail the test, not end the shared test JVM.
        org.apache.ratis.util.ExitUtils.disableSystemExit();
    }

    private TestClusters() {}

    /** Past the router's request deadline: on a loaded machine a slow answer is still an answer, not a client timeout. */
    private static final int JEDIS_TIMEOUT_SLACK_MS = 20_000;

    /**
     * A Jedis client of {@code cluster}'s router whose socket timeout outlasts the router's request
     * deadline (Jedis's own default, 2 s, is a wall-clock window a loaded machine breaks): the router
     * answers every request by its deadline, with an error when it must.
     */
    static Jedis jedis(LocalCluster cluster) {
        int timeoutMs = Math.toIntExact(cluster.config().router().requestTimeoutMs() + JEDIS_TIMEOUT_SLACK_MS);
        return new Jedis("127.0.0.1", cluster.router().respPort(), timeoutMs);
    }

    /** A config for {@code replicasets x replicas} in {@code dir}, with optional extra sections. */
    public static ClusterConfig config(Path dir, int replicasets, int replicas, int buckets, Map<String, Object> extra) throws IOException {
        return config(dir, replicasets, replicas, buckets, 0, extra);
    }

    /**
     * As above, with free ports for {@code spareNodes} more nodes (three each) after the nodes' for nodes added later
     * ({@code cairn topology add-replicaset} takes the ports after the highest node port).
     */
    static ClusterConfig config(Path dir, int replicasets, int replicas, int buckets, int spareNodes, Map<String, Object> extra) throws IOException {
        int ports = 12 + 3 * (replicasets * replicas + spareNodes);
        int base = Ports.freeRange(ports);
        Map<String, Object> tree = new LinkedHashMap<>(LocalCluster.configTree(
                new LocalCluster.Shape(replicasets, replicas, buckets, base + ports - 1, base)));
        tree.putAll(extra);
        Path file = dir.resolve(LocalCluster.CONFIG_FILE);
        ConfigLoader.write(file, tree);
        return ConfigLoader.load(file);
    }
}
