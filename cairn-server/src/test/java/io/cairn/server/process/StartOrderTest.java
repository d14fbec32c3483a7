package io.cairn.server.process;

import io.cairn.server.TestClusters;
import io.cairn.server.config.ClusterConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 22: processes start in any order. A router, and a storage node on a new folder, started
 * before any coordinator wait (their {@code /health} says for what) instead of exiting, and serve
 * once the coordinator is up.
 */
class StartOrderTest {
    @TempDir
    Path dir;

    @Test
    void aRouterAndAStorageNodeStartedBeforeTheirCoordinatorWaitAndThenServe() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 1, 3, 30, Map.of());
        RouterProcess router = new RouterProcess(config, "r1");
        CompletableFuture<RouterProcess> started = CompletableFuture.supplyAsync(() -> {
            try {
                return router.start();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        // a storage node on a new folder of a three-node replicaset asks a coordinator whether the replicaset holds data
        CompletableFuture<StorageProcess> first = CompletableFuture.supplyAsync(() -> {
            try {
                return new StorageProcess(config, "s1-1").start();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        CoordinatorProcess coordinator = null;
        java.util.List<StorageProcess> storage = new java.util.ArrayList<>();
        try {
            var r = config.topology().routers().get(0);
            String health = "http://" + r.host() + ":" + r.adminPort() + "/health";
            await("the router's /health says it waits").atMost(Duration.ofSeconds(20)).ignoreExceptions()
                    .until(() -> get(health).statusCode() == 503 && get(health).body().startsWith("waiting for a coordinator"));
            assertThat(started).as("still waiting, not exited").isNotDone();
            var s1 = config.topology().replicasets().get(0).nodes().get(0);
            String storageHealth = "http://" + s1.host() + ":" + s1.adminPort() + "/health";
            await("the storage node's /health says it waits").atMost(Duration.ofSeconds(20)).ignoreExceptions()
                    .until(() -> get(storageHealth).statusCode() == 503
                            && get(storageHealth).body().startsWith("waiting for a coordinator to learn whether replicaset rs1 holds data"));
            assertThat(first).as("still waiting, not exited").isNotDone();

            coordinator = new CoordinatorProcess(config, "c1").start();
            storage.add(first.get(60, TimeUnit.SECONDS));
            storage.add(new StorageProcess(config, "s1-2").start());
            storage.add(new StorageProcess(config, "s1-3").start());
            started.get(60, TimeUnit.SECONDS);
            await("routes").atMost(Duration.ofSeconds(60)).until(() -> get(health).statusCode() == 200);
            try (Jedis jedis = new Jedis(r.host(), r.respPort(), 20_000)) {
                assertThat(jedis.set("k", "v")).isEqualTo("OK");
                assertThat(jedis.get("k")).isEqualTo("v");
            }
        } finally {
            router.close();
            if (!first.isDone()) first.cancel(true);
            for (StorageProcess s : storage) s.close();
            if (coordinator != null) coordinator.close();
        }
    }

    /** Issue 21/22: a router keeps the topologies it learned; restarted while no coordinator answers, it serves with the newest. */
    @Test
    void aRouterRestartedWhileNoCoordinatorAnswersServesWithTheTopologyItKept() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 1, 1, 30, Map.of());
        CoordinatorProcess coordinator = new CoordinatorProcess(config, "c1").start();
        StorageProcess storage = new StorageProcess(config, "s1-1").start();
        RouterProcess second = null;
        try {
            var r = config.topology().routers().get(0);
            try (RouterProcess first = new RouterProcess(config, "r1").start()) {
                assertThat(first.router().awaitRoutes(Duration.ofSeconds(60))).isTrue();
                try (Jedis jedis = new Jedis(r.host(), r.respPort(), 20_000)) {
                    assertThat(jedis.set("k", "v")).isEqualTo("OK");
                }
            }
            assertThat(config.nodeDir("r1").resolve(LocalTopologies.FILE)).exists();
            coordinator.close();
            coordinator = null;

            second = new RouterProcess(config, "r1").start();
            assertThat(second.router().topology().epoch()).isEqualTo(1);
            assertThat(second.router().awaitRoutes(Duration.ofSeconds(60))).isTrue();
            try (Jedis jedis = new Jedis(r.host(), r.respPort(), 20_000)) {
                assertThat(jedis.get("k")).isEqualTo("v");
                assertThat(jedis.set("k", "w")).isEqualTo("OK");
            }
        } finally {
            if (second != null) second.close();
            storage.close();
            if (coordinator != null) coordinator.close();
        }
    }

    private static HttpResponse<String> get(String url) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
