package io.cairn.server;

import io.cairn.core.BucketHasher;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * MULTI/EXEC and WATCH on the real stack (issue 24): a transaction in one bucket applied whole through
 * storage; WATCH aborted by another client's write to the watched bucket, and by a move of that bucket
 * to another replicaset (its version there can never equal the one watched); a clean WATCH applies.
 */
class TransactionsClusterTest {
    private static final int BUCKETS = 64;

    @TempDir
    Path dir;

    @Test
    void execAppliesWholeAndWatchAbortsOnAWriteOrAMoveOfTheBucket() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 2, 1, BUCKETS, Map.of("rebalancer", Map.of("auto", false)));
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            try (Jedis jedis = TestClusters.jedis(cluster); Jedis other = TestClusters.jedis(cluster)) {
                Transaction t = jedis.multi();
                t.set("{acct}balance", "100");
                t.incrBy("{acct}balance", 5);
                t.hset("{acct}history", "1", "deposit");
                assertThat(t.exec()).containsExactly("OK", 105L, 1L);
                assertThat(jedis.get("{acct}balance")).isEqualTo("105");

                jedis.watch("{acct}balance");
                other.set("{acct}unrelated-but-same-bucket", "x");
                t = jedis.multi();
                t.incrBy("{acct}balance", 10);
                assertThat(t.exec()).as("a write to the watched bucket aborts").isNull();
                assertThat(jedis.get("{acct}balance")).isEqualTo("105");

                jedis.watch("{acct}balance");
                t = jedis.multi();
                t.incrBy("{acct}balance", 10);
                assertThat(t.exec()).as("nothing written since WATCH").containsExactly(115L);

                int bucket = BucketHasher.bucketOf("{acct}balance".getBytes(StandardCharsets.UTF_8), BUCKETS);
                String from = cluster.router().router().ownerOf(bucket);
                String to = from.equals("rs1") ? "rs2" : "rs1";
                jedis.watch("{acct}balance");
                Cli move = Cli.run("bucket", "move", Integer.toString(bucket), "--to", to, "--wait", "--config", config.source().toString());
                assertThat(move.exitCode()).as(move.err()).isZero();
                await().atMost(Duration.ofSeconds(30)).until(() -> to.equals(cluster.router().router().ownerOf(bucket)));
                t = jedis.multi();
                t.incrBy("{acct}balance", 10);
                List<Object> afterMove = t.exec();
                assertThat(afterMove).as("the bucket moved since WATCH: its version on %s differs", to).isNull();
                assertThat(jedis.get("{acct}balance")).isEqualTo("115");
            }
        }
    }
}
