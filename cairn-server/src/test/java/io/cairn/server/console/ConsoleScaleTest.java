package io.cairn.server.console;

import io.cairn.core.testing.ExternalTool;
import io.cairn.server.process.LocalCluster;
import io.cairn.server.TestClusters;
import io.cairn.server.config.ClusterConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A big bucket map in a real browser: drawn, with every member shown up although their {@code /info}
 * is slow at that size; the time to gather and draw it is measured and printed. {@code mvn verify}
 * draws 200,000 buckets; {@code -Dcairn.console.scaleBuckets=1000000} the million of docs/console.md
 * (40-90 s on the 2-core VM).
 */
class ConsoleScaleTest {
    private static final int BUCKETS = Integer.getInteger("cairn.console.scaleBuckets", 200_000);

    @TempDir
    Path dir;
    @TempDir
    Path browserDir;

    @Test
    void aBigBucketMapIsDrawnWithEveryMemberUp() throws Exception {
        Path chromium = ExternalTool.require("chromium", "chromium");
        ClusterConfig config = TestClusters.config(dir, 2, 1, BUCKETS, Map.of("rebalancer", Map.of("auto", false)));
        long startNs = System.nanoTime();
        try (LocalCluster cluster = new LocalCluster(config).start();
             HeadlessChromium browser = HeadlessChromium.start(chromium, browserDir.resolve("profile"), 1400, 1250)) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(600))).isTrue();
            System.out.printf("cluster of %d buckets ready in %d ms%n", BUCKETS, (System.nanoTime() - startNs) / 1_000_000);
            browser.open("http://127.0.0.1:" + cluster.router().admin().port() + "/console/");
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                    .until(() -> browser.eval("document.getElementById('map-caption').textContent").asText().startsWith(String.format(java.util.Locale.ROOT, "%,d buckets", BUCKETS)));
            String timing = browser.eval("(() => { const t0 = performance.now(); drawMap(); const t1 = performance.now(); renderLegend(view.state);"
                    + " return 'drawMap ' + (t1 - t0).toFixed(1) + ' ms, legend ' + (performance.now() - t1).toFixed(1) + ' ms, canvas '"
                    + " + document.getElementById('map').width + 'x' + document.getElementById('map').height; })()").asText();
            // Storage nodes of half a million buckets each answer /info slowly on a busy host: shown up all the same.
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> browser.eval("document.body.dataset.updates >= 5 && document.querySelectorAll('tr[data-member][data-up=\"true\"]').length === 2").asBoolean());
            String refresh = browser.eval("'refresh ' + view.state.refreshMs + ' ms, of which the map ' + view.state.mapMs + ' ms'").asText();
            System.out.printf("%,d-bucket map in chromium: %s; router: %s%n", BUCKETS, timing, refresh);
            browser.screenshot(Path.of("target", "console-screenshots", "console-million.png"));
        }
    }
}
