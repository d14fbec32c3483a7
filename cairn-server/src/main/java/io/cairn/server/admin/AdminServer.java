package io.cairn.server.admin;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The admin HTTP endpoint every process has: {@code /metrics} (Prometheus text),
 * {@code /info} (JSON), {@code /health} (200 when serving, 503 otherwise), plus
 * process-specific routes. Uses the JDK's HTTP server on two threads.
 */
public final class AdminServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(AdminServer.class);
    public static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final HttpServer http;
    private volatile Supplier<String> waitingFor = () -> null;
    private final ExecutorService executor;
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final AdminAccess access;
    private final LongAdder unauthorized = new LongAdder();

    public AdminServer(String host, int port, Supplier<Map<String, Object>> info, Supplier<Boolean> healthy) throws IOException {
        this(host, port, info, healthy, AdminAccess.open());
    }

    /** @param access who may use the port (issue 26): every route goes through it */
    public AdminServer(String host, int port, Supplier<Map<String, Object>> info, Supplier<Boolean> healthy, AdminAccess access)
            throws IOException {
        this.access = access;
        http = AdminHttps.newServer(new InetSocketAddress(host, port), 64);
        FunctionCounter.builder("cairn_admin_unauthorized_requests", unauthorized, LongAdder::sum)
                .description("admin HTTP requests refused with 401: no or a wrong bearer token").register(registry);
        executor = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "cairn-admin-http");
            t.setDaemon(true);
            return t;
        });
        http.setExecutor(executor);
        route("/metrics", ex -> send(ex, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape()));
        route("/info", ex -> sendJson(ex, 200, info.get()));
        route("/health", ex -> {
            String waiting = waitingFor.get();
            if (waiting != null) {
                send(ex, 503, "text/plain", "waiting for " + waiting + "\n");
                return;
            }
            boolean ok = healthy.get();
            send(ex, ok ? 200 : 503, "text/plain", ok ? "ok\n" : "unavailable\n");
        });
    }

    /** What the process waits for before it can serve (null: nothing); {@code /health} answers 503 with it. */
    public AdminServer waitingFor(Supplier<String> what) {
        this.waitingFor = what;
        return this;
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /**
     * Adds a route; the handler's failures become a 500 with the message, never a stack trace on the
     * wire. A request the {@link AdminAccess} refuses is answered 401 before the handler runs.
     */
    public void route(String path, HttpHandler handler) {
        http.createContext(path, ex -> {
            try (ex) {
                if (!access.allows(ex.getRequestMethod(), ex.getRequestURI().getPath(), ex.getRequestHeaders().getFirst("Authorization"))) {
                    refuse(ex);
                    return;
                }
                handler.handle(ex);
            } catch (RuntimeException e) {
                log.warn("admin {} failed: {}", path, e.toString());
                send(ex, 500, "text/plain", "error: " + e.getMessage() + "\n");
            }
        });
    }

    private void refuse(HttpExchange ex) throws IOException {
        unauthorized.increment();
        log.debug("admin: refused {} {} from {}: no or a wrong bearer token", ex.getRequestMethod(), ex.getRequestURI().getPath(),
                ex.getRemoteAddress());
        ex.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"cairn admin\"");
        send(ex, 401, "text/plain", "unauthorized: " + ex.getRequestMethod() + " " + ex.getRequestURI().getPath()
                + " needs the cluster's admin token (header 'Authorization: Bearer <token>'; the cairn command reads it from "
                + "security.adminToken or security.adminTokenFile of the config, or from " + AdminAccess.TOKEN_ENV + ")\n");
    }

    /** Admin requests refused with 401 since start. */
    public long unauthorizedRequests() {
        return unauthorized.sum();
    }

    public AdminServer start() {
        http.start();
        return this;
    }

    public int port() {
        return http.getAddress().getPort();
    }

    public static void sendJson(HttpExchange ex, int status, Object body) throws IOException {
        send(ex, status, "application/json", JSON.writeValueAsString(body) + "\n");
    }

    public static void send(HttpExchange ex, int status, String contentType, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", contentType);
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        http.stop(0);
        executor.shutdownNow();
        registry.close();
    }
}
