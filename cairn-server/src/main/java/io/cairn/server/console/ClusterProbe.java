package io.cairn.server.console;

import com.fasterxml.jackson.core.type.TypeReference;
import io.cairn.server.admin.AdminHttps;
import io.cairn.server.admin.AdminServer;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Asks other Cairn processes' admin ports for JSON ({@code /info} as {@code cairn status} does, a
 * bucket's records), asynchronously and bounded by a timeout: a failure of any kind is a null
 * answer, never an exception. One HTTP client (AdminHttps: HTTPS with cluster TLS), shared by every call.
 */
final class ClusterProbe {
    /** A stopped process refuses at once; this bounds a host that does not answer at all. */
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

    /** A JSON object from {@code url}, or null on any failure (the caller shows it as missing). */
    CompletableFuture<Map<String, Object>> getJson(String url, Duration timeout) {
        HttpRequest req = HttpRequest.newBuilder(URI.create(url)).timeout(timeout).GET().build();
        return AdminHttps.client(CONNECT_TIMEOUT).sendAsync(req, HttpResponse.BodyHandlers.ofString()).<Map<String, Object>>thenApply(resp -> {
            if (resp.statusCode() != 200) return null;
            try {
                return AdminServer.JSON.readValue(resp.body(), new TypeReference<Map<String, Object>>() {});
            } catch (Exception notJson) {
                return null;
            }
        }).exceptionally(e -> null);
    }
}
