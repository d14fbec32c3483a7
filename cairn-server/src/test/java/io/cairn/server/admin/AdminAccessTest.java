package io.cairn.server.admin;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The admin port's bearer token over real HTTP on loopback (issue 26, item 3). */
class AdminAccessTest {
    private static final String TOKEN = "t0ken-for-tests";
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final AtomicInteger changes = new AtomicInteger();
    private AdminServer server;

    @AfterEach
    void stop() {
        if (server != null) server.close();
    }

    private void start(AdminAccess access) throws IOException {
        server = new AdminServer("127.0.0.1", 0, () -> Map.of("role", "test"), () -> true, access);
        server.route("/moves/", ex -> {
            if ("POST".equals(ex.getRequestMethod())) changes.incrementAndGet();
            AdminServer.send(ex, 200, "text/plain", "done\n");
        });
        server.route("/buckets/", ex -> AdminServer.send(ex, 200, "text/plain", "k1 v1\n"));
        server.start();
    }

    private HttpResponse<String> call(String method, String path, String authorization) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .timeout(Duration.ofSeconds(10)).method(method, HttpRequest.BodyPublishers.noBody());
        if (authorization != null) b.header("Authorization", authorization);
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void withoutATokenEveryRequestIsServedAsBefore() throws Exception {
        start(AdminAccess.open());
        assertThat(call("POST", "/moves/7?to=rs2", null).statusCode()).isEqualTo(200);
        assertThat(call("GET", "/buckets/7/export?from=rs1", null).statusCode()).isEqualTo(200);
        assertThat(changes).hasValue(1);
    }

    @Test
    void changesAndDataExportsNeedTheTokenWhileReadOnlyViewsStayOpen() throws Exception {
        start(new AdminAccess(TOKEN, true));
        HttpResponse<String> refused = call("POST", "/moves/7?to=rs2", null);
        assertThat(refused.statusCode()).isEqualTo(401);
        assertThat(refused.body()).contains("POST /moves/7 needs the cluster's admin token", "Authorization: Bearer", "CAIRN_ADMIN_TOKEN");
        assertThat(refused.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"cairn admin\"");
        assertThat(call("POST", "/moves/7", "Bearer wrong").statusCode()).isEqualTo(401);
        assertThat(call("POST", "/moves/7", "Bearer " + TOKEN + "x").statusCode()).isEqualTo(401);
        assertThat(call("POST", "/moves/7", "Basic " + TOKEN).statusCode()).isEqualTo(401);
        assertThat(call("DELETE", "/moves/7", null).statusCode()).isEqualTo(401);
        assertThat(call("GET", "/buckets/7/export?from=rs1", null).statusCode()).as("stored data is not a read-only view").isEqualTo(401);
        assertThat(changes).as("no refused request reached its handler").hasValue(0);

        assertThat(call("GET", "/info", null).statusCode()).isEqualTo(200);
        assertThat(call("GET", "/health", null).statusCode()).isEqualTo(200);
        assertThat(call("GET", "/buckets/7", null).statusCode()).isEqualTo(200);
        assertThat(call("POST", "/moves/7", "Bearer " + TOKEN).statusCode()).isEqualTo(200);
        assertThat(call("POST", "/moves/7", "bearer " + TOKEN).statusCode()).as("the scheme is case-insensitive").isEqualTo(200);
        assertThat(call("GET", "/buckets/7/export?from=rs1", "Bearer " + TOKEN).statusCode()).isEqualTo(200);
        assertThat(changes).hasValue(2);

        assertThat(server.unauthorizedRequests()).isEqualTo(6);
        assertThat(call("GET", "/metrics", null).body()).contains("cairn_admin_unauthorized_requests_total 6.0");
    }

    @Test
    void withReadOpenOffEveryRequestNeedsTheToken() throws Exception {
        start(new AdminAccess(TOKEN, false));
        for (String path : new String[] {"/info", "/metrics", "/health", "/buckets/7"}) {
            assertThat(call("GET", path, null).statusCode()).as(path).isEqualTo(401);
            assertThat(call("GET", path, "Bearer " + TOKEN).statusCode()).as(path).isEqualTo(200);
        }
    }

    @Test
    void theClientSideAddsTheTokenOfTheLastConfigLoaded() {
        try {
            AdminAccess.useClientToken("abc");
            HttpRequest request = AdminAccess.authorize(HttpRequest.newBuilder(URI.create("http://127.0.0.1:1/x"))).build();
            String expected = System.getenv(AdminAccess.TOKEN_ENV) == null ? "Bearer abc" : "Bearer " + System.getenv(AdminAccess.TOKEN_ENV).trim();
            assertThat(request.headers().firstValue("Authorization")).hasValue(expected);
            AdminAccess.useClientToken("");
            if (System.getenv(AdminAccess.TOKEN_ENV) == null) {
                assertThat(AdminAccess.authorize(HttpRequest.newBuilder(URI.create("http://127.0.0.1:1/x"))).build()
                        .headers().firstValue("Authorization")).isEmpty();
            }
        } finally {
            AdminAccess.useClientToken("");
        }
    }
}
