package io.cairn.server.admin;

import com.fasterxml.jackson.core.type.TypeReference;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/**
 * Calls to other processes' admin ports, as the {@code cairn} commands and the coordinator's membership loop
 * make them: with this process's admin token ({@link AdminAccess#authorize}) and, with internal TLS, its
 * certificate ({@link AdminHttps#client}). A call that gets no answer is a value (null, status 0), never an
 * exception.
 */
public final class AdminClient {
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

    private AdminClient() {}

    public static Map<String, Object> getJson(String url) {
        return getJson(url, Duration.ofSeconds(25));
    }

    /** The JSON object at {@code url}, or null when nothing answered 200 within {@code timeout}. */
    public static Map<String, Object> getJson(String url, Duration timeout) {
        try {
            HttpResponse<String> r = AdminHttps.client(CONNECT_TIMEOUT).send(AdminAccess.authorize(HttpRequest.newBuilder(URI.create(url))).timeout(timeout).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? AdminServer.JSON.readValue(r.body(), new TypeReference<Map<String, Object>>() {}) : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** An admin port's answer: its HTTP status and body; status 0 when nothing answered (the body says why). */
    public record Answer(int status, String body) {}

    /** POSTs with no body. */
    public static Answer post(String url) {
        try {
            HttpResponse<String> r = AdminHttps.client(CONNECT_TIMEOUT).send(AdminAccess.authorize(HttpRequest.newBuilder(URI.create(url))).timeout(Duration.ofSeconds(60))
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(r.statusCode(), r.body());
        } catch (IOException e) {
            return new Answer(0, "no answer from " + url + ": " + e.getMessage() + "\n");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer(0, "interrupted\n");
        }
    }
}
