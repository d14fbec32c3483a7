package io.cairn.server.console;

import com.fasterxml.jackson.core.type.TypeReference;
import io.cairn.server.admin.AdminServer;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Asks other Cairn processes' admin ports for their {@code /info} (as {@code cairn status} does),
 * asynchronously and bounded by a short timeout: a process that does not answer in time is
 * reported as null (down), never waited on longer. One HTTP client, shared by every call.
 */
final class ClusterProbe {
    /** Short: a probe round runs once a second, and a down node must not hold the console's view up. */
    static final Duration TIMEOUT = Duration.ofMillis(800);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    /** The process's {@code /info}, or null when it does not answer 200 with JSON within {@link #TIMEOUT}. */
    CompletableFuture<Map<String, Object>> info(String host, int adminPort) {
        return getJson("http://" + host + ":" + adminPort + "/info", TIMEOUT);
    }

    /** A JSON object from {@code url}, or null on any failure (the caller shows it as missing). */
    CompletableFuture<Map<String, Object>> getJson(String url, Duration timeout) {
        HttpRequest req = HttpRequest.newBuilder(URI.create(url)).timeout(timeout).GET().build();
        return http.sendAsync(req, HttpResponse.BodyHandlers.ofString()).<Map<String, Object>>thenApply(resp -> {
            if (resp.statusCode() != 200) return null;
            try {
                return AdminServer.JSON.readValue(resp.body(), new TypeReference<Map<String, Object>>() {});
            } catch (Exception notJson) {
                return null;
            }
        }).exceptionally(e -> null);
    }
}
