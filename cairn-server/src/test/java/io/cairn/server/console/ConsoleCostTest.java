package io.cairn.server.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cairn.server.process.LocalCluster;
import io.cairn.server.TestClusters;
import io.cairn.server.config.ClusterConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ten consoles open on one router (each polling as the page does: the state every second with the
 * traffic points it lacks, the bucket map when its version changes) cost the router one gathering a second, not ten; the CPU
 * they cost the in-process cluster is measured and printed (docs/console.md, "Cost").
 */
class ConsoleCostTest {
    private static final int CONSOLES = 10;
    /** The measured window. */
    private static final int SECONDS = 10;
    /** The idle baseline: past the 15 s after which an unwatched console stops refreshing. */
    private static final int IDLE_SECONDS = 16;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    /** CPU nanoseconds used so far by the live threads, summed per name (all admin servers' threads share one). */
    private static Map<String, Long> cpuByThreadKind() {
        var threads = ManagementFactory.getThreadMXBean();
        Map<String, Long> out = new java.util.HashMap<>();
        for (java.lang.management.ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (t == null) continue;
            long cpu = threads.getThreadCpuTime(t.getThreadId());
            if (cpu > 0) out.merge(t.getThreadName(), cpu, Long::sum);
        }
        return out;
    }

    @Test
    void tenOpenConsolesCostOneRefreshASecond() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 2, 3, 3000, Map.of("rebalancer", Map.of("auto", false)));
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(120))).isTrue();
            String base = "http://127.0.0.1:" + cluster.router().admin().port() + "/console/api/";
            HttpClient http = HttpClient.newHttpClient();
            http.send(HttpRequest.newBuilder(URI.create(base + "state")).build(), HttpResponse.BodyHandlers.ofString()); // the first refresh

            var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            long idleCpu = os.getProcessCpuTime();
            long idleStart = System.nanoTime();
            new CountDownLatch(1).await(IDLE_SECONDS, TimeUnit.SECONDS); // idle baseline: nothing polls (the refresher stops after 15 s unwatched)
            double idleCpuMsPerSecond = (os.getProcessCpuTime() - idleCpu) / 1e6 / ((System.nanoTime() - idleStart) / 1e9);

            AtomicInteger stateCalls = new AtomicInteger(), mapCalls = new AtomicInteger(), failures = new AtomicInteger();
            AtomicLong stateBytes = new AtomicLong();
            long refreshesBefore = cluster.router().console().refreshes();
            Map<String, Long> threadsBefore = cpuByThreadKind();
            long cpuBefore = os.getProcessCpuTime();
            long start = System.nanoTime();
            ScheduledExecutorService consoles = Executors.newScheduledThreadPool(CONSOLES);
            String[] versions = new String[CONSOLES];
            long[] since = new long[CONSOLES]; // as the page: only the traffic points it lacks
            java.util.concurrent.atomic.AtomicBoolean measuring = new java.util.concurrent.atomic.AtomicBoolean(true);
            for (int c = 0; c < CONSOLES; c++) {
                int console = c;
                consoles.scheduleAtFixedRate(() -> {
                    try {
                        String state = http.send(HttpRequest.newBuilder(URI.create(base + "state?since=" + since[console])).build(),
                                HttpResponse.BodyHandlers.ofString()).body();
                        stateCalls.incrementAndGet();
                        stateBytes.addAndGet(state.length());
                        JsonNode parsed = JSON.readTree(state);
                        for (JsonNode rs : parsed.path("traffic")) for (JsonNode t : rs.path("t")) since[console] = Math.max(since[console], t.asLong());
                        String version = parsed.path("mapVersion").asText();
                        if (!version.equals(versions[console])) {
                            http.send(HttpRequest.newBuilder(URI.create(base + "buckets")).build(), HttpResponse.BodyHandlers.ofByteArray());
                            mapCalls.incrementAndGet();
                            versions[console] = version;
                        }
                    } catch (Exception e) {
                        if (measuring.get()) {
                            failures.incrementAndGet();
                            System.out.println("console " + console + ": " + e);
                        }
                    }
                }, c * 100L, 1000, TimeUnit.MILLISECONDS);
            }
            new CountDownLatch(1).await(SECONDS, TimeUnit.SECONDS); // the measured window
            double seconds = (System.nanoTime() - start) / 1e9;
            double cpuMsPerSecond = (os.getProcessCpuTime() - cpuBefore) / 1e6 / seconds;
            long refreshes = cluster.router().console().refreshes() - refreshesBefore;
            Map<String, Long> threadsAfter = cpuByThreadKind();
            measuring.set(false);
            consoles.shutdown(); // calls in flight end normally
            assertThat(consoles.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
            JsonNode last = JSON.readTree(http.send(HttpRequest.newBuilder(URI.create(base + "state")).build(), HttpResponse.BodyHandlers.ofString()).body());
            System.out.printf("console cost: %d consoles for %.1f s: %d state calls (%d bytes each on average), %d map fetches, %d refreshes "
                            + "(last took %s ms); whole cluster JVM CPU %.1f ms/s with them, %.1f ms/s idle before (%d cores)%n",
                    CONSOLES, seconds, stateCalls.get(), stateBytes.get() / Math.max(1, stateCalls.get()), mapCalls.get(), refreshes,
                    last.path("refreshMs").asText(), cpuMsPerSecond, idleCpuMsPerSecond, Runtime.getRuntime().availableProcessors());

            // The console's own threads: the refresher, and the admin threads that serve the state (router) and /info (probed processes).
            for (String kind : new String[] {"cairn-console-refresh", "cairn-admin-http"}) {
                System.out.printf("console cost: threads %s %.1f ms CPU per second%n", kind,
                        (threadsAfter.getOrDefault(kind, 0L) - threadsBefore.getOrDefault(kind, 0L)) / 1e6 / seconds);
            }
            assertThat(failures.get()).isZero();
            assertThat(stateCalls.get()).isGreaterThanOrEqualTo(CONSOLES * (SECONDS - 5)); // the consoles did poll, on a loaded machine too
            assertThat(refreshes).as("refreshes in %.1f s with %d consoles", seconds, CONSOLES).isLessThanOrEqualTo((long) seconds + 2);
            assertThat(mapCalls.get()).as("map fetches: only when its version changes").isLessThanOrEqualTo(CONSOLES * 2);
        }
    }
}
