package io.cairn.router;

import io.cairn.core.BucketHasher;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;
import io.cairn.core.wire.KeyPage;
import io.cairn.router.resp.RespConfig;
import io.cairn.router.resp.RespServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** DBSIZE, KEYS, SCAN and FLUSHALL through a real router over real replicasets (Ratis + RocksDB). */
class KeyspaceTest {
    private static final int BUCKETS = 120;

    @TempDir
    Path dir;

    @Test
    void wholeKeyspaceCommandsSeeEveryKeyOfEveryReplicaset() throws Exception {
        try (TestCluster cluster = new TestCluster(dir, 2, 1, BUCKETS).start().bootstrap()) {
            Router router = cluster.startRouter(RouterConfig.defaults());
            List<KvOp> sets = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                byte[] key = ("key-" + i).getBytes(StandardCharsets.UTF_8);
                sets.add(KvOp.set(BucketHasher.bucketOf(key, BUCKETS), key, "v".getBytes(StandardCharsets.UTF_8)));
            }
            assertThat(router.execute(sets).get(30, TimeUnit.SECONDS)).allMatch(r -> r.equals(OpResult.OK));

            assertThat(router.exactKeyCount().get(10, TimeUnit.SECONDS)).isEqualTo(300);
            assertThat(router.keys(k -> new String(k, StandardCharsets.UTF_8).endsWith("7"), 1_000).get(10, TimeUnit.SECONDS))
                    .hasSize(30);

            Set<String> scanned = new HashSet<>();
            KeyPage.Position from = KeyPage.Position.START;
            int pages = 0;
            while (from != null) {
                KvBackend.ScanPage page = router.scan(from, 11).get(10, TimeUnit.SECONDS);
                page.keys().forEach(k -> assertThat(scanned.add(new String(k, StandardCharsets.UTF_8))).isTrue());
                from = page.next();
                assertThat(++pages).isLessThan(200);
            }
            assertThat(scanned).hasSize(300);

            assertThat(router.flushAll().get(10, TimeUnit.SECONDS)).isEqualTo(300);
            assertThat(router.exactKeyCount().get(10, TimeUnit.SECONDS)).isZero();
        }
    }

    @Test
    void redisClientsScanAndCountThroughTheRespServer() throws Exception {
        try (TestCluster cluster = new TestCluster(dir, 2, 1, BUCKETS).start().bootstrap()) {
            Router router = cluster.startRouter(RouterConfig.defaults());
            RespServer resp = new RespServer(router, RespConfig.builder().host("127.0.0.1").port(0).build()).start();
            try (Jedis jedis = new Jedis("127.0.0.1", resp.port(), 30_000)) {
                for (int i = 0; i < 100; i++) jedis.set("user:" + i, "v");
                jedis.set("other", "v");
                assertThat(jedis.dbSize()).isEqualTo(101);
                assertThat(jedis.keys("user:*")).hasSize(100);

                Set<String> seen = new HashSet<>();
                String cursor = "0";
                do {
                    ScanResult<String> page = jedis.scan(cursor, new ScanParams().match("user:*").count(9));
                    seen.addAll(page.getResult());
                    cursor = page.getCursor();
                } while (!cursor.equals("0"));
                assertThat(seen).hasSize(100);

                assertThat(jedis.flushAll()).isEqualTo("OK");
                assertThat(jedis.dbSize()).isZero();
                assertThat(jedis.get("user:1")).isNull();
            } finally {
                resp.close();
            }
        }
    }
}
