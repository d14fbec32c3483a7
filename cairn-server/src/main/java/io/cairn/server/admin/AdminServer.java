package io.cairn.server.admin;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
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

    public AdminServer(String host, int port, Supplier<Map<String, Object>> info, Supplier<Boolean> healthy) throws IOException {
        http = HttpServer.create(new InetSocketAddress(host, port), 64);
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

    /** Adds a route; the handler's failures become a 500 with the message, never a stack trace on the wire. */
    public void route(String path, HttpHandler handler) {
        http.createContext(path, ex -> {
            try (ex) {
                handler.handle(ex);
            } catch (RuntimeException e) {
                log.warn("admin {} failed: {}", path, e.toString());
                send(ex, 500, "text/plain", "error: " + e.getMessage() + "\n");
            }
        });
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
