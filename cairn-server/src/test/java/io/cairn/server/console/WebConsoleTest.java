package io.cairn.server.console;

import com.fasterxml.jackson.databind.JsonNode;
import io.cairn.core.BucketHasher;
import io.cairn.core.testing.ExternalTool;
import io.cairn.server.Cli;
import io.cairn.server.process.LocalCluster;
import io.cairn.server.TestClusters;
import io.cairn.server.config.ClusterConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The web console in a real browser (Debian's {@code chromium}, headless, over the DevTools
 * protocol) against an in-process cluster: a move started with {@code cairn bucket move} shows on
 * the page as moving and then done, and a storage node stopped with {@code cairn node stop} shows
 * as down with its alert. Skipped when chromium is not installed, failed instead under CI=true
 * ({@link ExternalTool}). Screenshots go to {@code target/console-screenshots/} (docs/console.md
 * says how they become docs/console*.png).
 */
class WebConsoleTest {
    private static final int BUCKETS = 3000;
    /** Keys of about 300 bytes in one bucket, copied at 2,000 bytes/s: the move takes about ten seconds, long enough to watch. */
    private static final int KEYS_IN_BUCKET = 60;
    private static final Duration PAGE_WAIT = Duration.ofSeconds(90);
    private static final Path SCREENSHOTS = Path.of("target", "console-screenshots");

    @TempDir
    Path dir;
    @TempDir
    Path browserDir;

    @Test
    void aCommandLineMoveShowsAsMovingThenDoneAndAStoppedNodeShowsAsDown() throws Exception {
        Path chromium = ExternalTool.require("chromium", "chromium");
        ClusterConfig config = TestClusters.config(dir, 2, 3, BUCKETS,
                Map.of("rebalancer", Map.of("auto", false, "chunkKeys", 10, "maxBytesPerSecond", 2_000)));
        try (LocalCluster cluster = new LocalCluster(config).start();
             AutoCloseable stopLoad = () -> loading.set(false); // closed before the cluster: its end is not a load error
             HeadlessChromium browser = HeadlessChromium.start(chromium, browserDir.resolve("profile"), 1400, 1250)) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(120))).isTrue();
            int bucket = BucketHasher.bucketOf("console".getBytes(), BUCKETS);
            try (Jedis jedis = new Jedis("127.0.0.1", cluster.router().respPort(), 30_000)) {
                for (int i = 0; i < KEYS_IN_BUCKET; i++) jedis.set("{console}" + i, "v".repeat(300) + i);
                for (int i = 0; i < 200; i++) jedis.set("other" + i, "x" + i); // traffic for the charts
            }
            String from = cluster.router().router().ownerOf(bucket);
            String to = from.equals("rs1") ? "rs2" : "rs1";
            String console = "http://127.0.0.1:" + cluster.router().admin().port() + "/console/?bucket=" + bucket;
            System.out.printf("console at %s; moving bucket %d from %s to %s%n", console, bucket, from, to);

            Thread load = steadyLoad(cluster, loading);
            browser.open(console);
            awaitPage(browser, "live updates and the bucket's owner",
                    "document.body.dataset.updates >= 2 && document.getElementById('bucket-detail').dataset.owner === '" + from + "'");
            assertThat(text(browser, "document.querySelectorAll('[data-replicaset][data-state]').length")).isEqualTo("2");
            assertThat(text(browser, "document.querySelectorAll('tr[data-member][data-up=\"true\"]').length")).isEqualTo("6");
            awaitPage(browser, "the load in the throughput chart", "[...document.querySelectorAll('#traffic-legend [data-writes]')].some(e => e.dataset.writes > 0)");

            Cli move = Cli.run("bucket", "move", Integer.toString(bucket), "--to", to, "--dir", dir.toString());
            assertThat(move.exitCode()).as(move.err()).isZero();
            awaitPage(browser, "the bucket shown as moving", "document.getElementById('bucket-detail').dataset.moving === 'true'");
            // The details read the router's routes live; the moves table comes with the next state (the move takes ~10 s).
            awaitPage(browser, "the move listed in flight", "document.querySelector('#moves tr[data-bucket=\"" + bucket + "\"]') !== null");
            browser.screenshot(SCREENSHOTS.resolve("console-moving.png"));

            awaitPage(browser, "the move done: the bucket on " + to + " and no longer moving",
                    "document.getElementById('bucket-detail').dataset.moving === 'false'"
                            + " && document.getElementById('bucket-detail').dataset.owner === '" + to + "'");
            assertThat(cluster.router().router().ownerOf(bucket)).isEqualTo(to);

            String stopped = to.equals("rs1") ? "s2-3" : "s1-3";
            Cli stop = Cli.run("node", "stop", stopped, "--dir", dir.toString());
            assertThat(stop.exitCode()).as(stop.err()).isZero();
            awaitPage(browser, stopped + " shown as down, with its alert",
                    "document.querySelector('tr[data-member=\"" + stopped + "\"]').dataset.up === 'false'"
                            + " && document.querySelector('#alerts [data-code=\"PROCESS_DOWN\"]') !== null");
            assertThat(text(browser, "document.querySelector('#alerts [data-code=\"PROCESS_DOWN\"]').textContent")).contains(stopped);
            browser.screenshot(SCREENSHOTS.resolve("console.png"));
            loading.set(false);
            load.join(30_000);
            assertThat(loadErrors.get()).as("errors of the steady load").isZero();
        }
    }

    private final java.util.concurrent.atomic.AtomicBoolean loading = new java.util.concurrent.atomic.AtomicBoolean(true);
    private final java.util.concurrent.atomic.AtomicInteger loadErrors = new java.util.concurrent.atomic.AtomicInteger();

    /** About 200 writes and reads a second while the page watches: the charts have something to show. */
    private Thread steadyLoad(LocalCluster cluster, java.util.concurrent.atomic.AtomicBoolean on) {
        Thread t = new Thread(() -> {
            try (Jedis jedis = new Jedis("127.0.0.1", cluster.router().respPort(), 30_000)) {
                for (int i = 0; on.get(); i++) {
                    jedis.set("load" + (i % 500), "v" + i);
                    jedis.get("load" + ((i * 7) % 500));
                    java.util.concurrent.locks.LockSupport.parkNanos(5_000_000); // pacing the load, not waiting for a condition
                }
            } catch (RuntimeException e) {
                if (on.get()) {
                    loadErrors.incrementAndGet();
                    System.out.println("steady load failed: " + e);
                }
            }
        }, "console-test-load");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static String text(HeadlessChromium browser, String expression) throws Exception {
        return browser.eval("String(" + expression + ")").asText();
    }

    /** Polls a condition in the page (the page itself polls the router every second). */
    private static void awaitPage(HeadlessChromium browser, String what, String condition) {
        await(what).atMost(PAGE_WAIT).pollInterval(Duration.ofMillis(200)).until(() -> {
            JsonNode ok = browser.eval("(() => { try { return " + condition + "; } catch (e) { return false; } })()");
            return ok.asBoolean(false);
        });
    }
}
