package io.cairn.server;

import io.cairn.core.testing.Fuzz;
import io.cairn.core.testing.SeededRandom;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Mutated requests to the admin ports of a running cluster (issue 26): the coordinator's routes that
 * change things (moves, pins, resolve, settings) and read them, and the router's console API. Whatever
 * the request line, query and body, the answer is a status below 500 (a bad request is the client's
 * error, said in words; 503 means a replicaset did not answer), and the processes keep answering. The
 * {@code cairn up} control routes ({@code /local/...}) are left out: stopping a node is what they are for.
 */
@ExtendWith(SeededRandom.class)
class AdminFuzzTest {
    @TempDir
    Path dir;

    @Test
    void noRequestMakesAnAdminPortFailOrStopAnswering(Random random) throws Exception {
        ClusterConfig config = TestClusters.config(dir, 2, 1, 16, Map.of("rebalancer", Map.of("auto", false)));
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            int coordinator = config.topology().coordinators().get(0).adminPort();
            int router = cluster.router().admin().port();
            List<byte[]> corpus = new ArrayList<>();
            for (String request : List.of("GET /buckets/3", "POST /buckets/3/pin", "POST /buckets/3/unpin", "POST /moves/4?to=rs2",
                    "POST /buckets/5/resolve?keep=rs1", "GET /buckets/5/export?from=rs2", "GET /settings",
                    "POST /settings?maxSending=2&thresholdPercent=5", "GET /doubled", "GET /rebalancer", "GET /alerts", "GET /info")) {
                corpus.add(("C " + request).getBytes(StandardCharsets.UTF_8));
            }
            for (String request : List.of("GET /console/api/state", "GET /console/api/buckets", "GET /console/api/bucket/3", "GET /console/index.html")) {
                corpus.add(("R " + request).getBytes(StandardCharsets.UTF_8));
            }
            Map<Integer, Integer> statuses = new TreeMap<>();
            // A request over a socket per input: a twentieth of the decoders' inputs.
            Fuzz.run(random, corpus, Fuzz.inputs() / 20, 64L << 20, input -> {
                String text = new String(input, StandardCharsets.ISO_8859_1);
                int port = text.startsWith("R") ? router : coordinator;
                int status = send(port, text.length() > 2 ? text.substring(2) : "");
                statuses.merge(status, 1, Integer::sum);
                if (status >= 500 && status != 503) throw new AssertionError(status + " for " + text);
            });
            System.out.println("admin answers by status: " + statuses);
            assertThat(send(coordinator, "GET /health")).isEqualTo(200);
            assertThat(send(router, "GET /health")).isEqualTo(200);
            assertThat(statuses.keySet()).as("valid requests succeed, mutated ones are refused").contains(200, 400);
        }
    }

    /**
     * Sends "METHOD target" (anything after the first line as a body) as an HTTP/1.1 request over a raw
     * socket, so a target no URI class would accept still reaches the server. Returns the status, or 400
     * when the server's HTTP layer refuses the request by closing without one.
     */
    private static int send(int port, String request) throws IOException {
        int eol = request.indexOf('\n');
        String line = (eol < 0 ? request : request.substring(0, eol)).replace('\r', ' ');
        byte[] body = eol < 0 ? new byte[0] : request.substring(eol + 1).getBytes(StandardCharsets.ISO_8859_1);
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            s.setSoTimeout(30_000);
            OutputStream out = s.getOutputStream();
            out.write((line + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: " + body.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.write(body);
            out.flush();
            InputStream in = s.getInputStream();
            String status = new String(in.readNBytes(12), StandardCharsets.ISO_8859_1);
            if (status.length() < 12 || !status.startsWith("HTTP/1.1 ")) return 400;
            return Integer.parseInt(status.substring(9, 12));
        }
    }
}
