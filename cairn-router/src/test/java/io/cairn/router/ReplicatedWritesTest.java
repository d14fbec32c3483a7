package io.cairn.router;

import io.cairn.core.BucketHasher;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class ReplicatedWritesTest {
    @TempDir
    Path dir;

    @Test
    void writesAreReadBackThroughTheRouterAcrossReplicasets() throws Exception {
        try (TestCluster cluster = new TestCluster(dir, 2, 3, 300).start().bootstrap()) {
            Router router = cluster.startRouter(RouterConfig.defaults());
            assertThat(router.bucketsByReplicaset()).containsEntry("rs1", 150).containsEntry("rs2", 150);
            List<KvOp> sets = new ArrayList<>();
            List<KvOp> gets = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                byte[] key = ("key-" + i).getBytes(StandardCharsets.UTF_8);
                int bucket = BucketHasher.bucketOf(key, 300);
                sets.add(KvOp.set(bucket, key, ("value-" + i).getBytes(StandardCharsets.UTF_8)));
                gets.add(KvOp.get(bucket, key));
            }
            List<OpResult> setResults = router.execute(sets).get(30, TimeUnit.SECONDS);
            assertThat(setResults).allMatch(r -> r.equals(OpResult.OK));
            List<OpResult> values = router.execute(gets).get(30, TimeUnit.SECONDS);
            for (int i = 0; i < 500; i++) {
                assertThat(new String(values.get(i).bytes(), StandardCharsets.UTF_8)).isEqualTo("value-" + i);
            }
            assertThat(router.dbSize().get(10, TimeUnit.SECONDS)).isEqualTo(500);
        }
    }
}
