package io.cairn.server.console;

import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.sun.net.httpserver.HttpExchange;
import io.cairn.router.BucketRoute;
import io.cairn.router.Router;
import io.cairn.server.admin.AdminServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The web console on a router's admin port (docs/console.md): static files from the jar under
 * {@code /console/} ({@code /} redirects there), and three JSON/binary calls the page makes:
 * {@code /console/api/state} (everything but the map, once a second), {@code /console/api/buckets}
 * (the {@link BucketMap}, fetched when its version changes) and {@code /console/api/bucket/N}
 * (one bucket's details, with every replicaset's record asked from the coordinator leader).
 * No CDN, no build step: plain HTML, CSS and JavaScript.
 */
public final class ConsoleRoutes implements AutoCloseable {
    private static final String RESOURCES = "/io/cairn/server/console/";
    /** The files served, and their types; anything else under /console/ is a 404. */
    private static final Map<String, String> FILES = Map.of(
            "index.html", "text/html; charset=utf-8",
            "console.js", "text/javascript; charset=utf-8",
            "console.css", "text/css; charset=utf-8",
            "alerts.js", "text/javascript; charset=utf-8");
    private static final Duration BUCKET_RECORDS_TIMEOUT = Duration.ofSeconds(3);

    private final ConsoleState state;

    private ConsoleRoutes(ConsoleState state) {
        this.state = state;
    }

    /** Serves the console on {@code admin}; {@code routerAlerts} are the router's own /alerts. */
    public static ConsoleRoutes install(AdminServer admin, Router router, String routerId, Supplier<List<String>> routerAlerts) {
        ConsoleRoutes routes = new ConsoleRoutes(new ConsoleState(router, routerId, routerAlerts));
        admin.route("/console/api/state", routes::state);
        admin.route("/console/api/buckets", routes::buckets);
        admin.route("/console/api/bucket/", routes::bucket);
        admin.route("/console/", routes::file);
        admin.route("/", ex -> {
            if (!ex.getRequestURI().getPath().equals("/")) {
                AdminServer.send(ex, 404, "text/plain", "no such page: " + ex.getRequestURI().getPath() + " (the console is at /console/)\n");
                return;
            }
            ex.getResponseHeaders().set("Location", "/console/");
            ex.sendResponseHeaders(302, -1);
        });
        return routes;
    }

    /** Compact JSON: the page reads it every second (the other admin endpoints are indented for people). */
    private static final ObjectWriter COMPACT =
            AdminServer.JSON.writer().without(SerializationFeature.INDENT_OUTPUT);

    /**
     * GET /console/api/state[?since=MS]: the last refresh; with {@code since}, the traffic history
     * holds only the points after it (the page asks for the points it lacks, not two minutes each second).
     */
    private void state(HttpExchange ex) throws IOException {
        Map<String, Object> s = state.state();
        long since = sinceOf(ex.getRequestURI().getQuery());
        if (since > 0 && s.get("traffic") instanceof Map<?, ?> traffic) {
            s = new LinkedHashMap<>(s);
            s.put("traffic", TrafficHistory.after(traffic, since));
        }
        byte[] body = COMPACT.writeValueAsBytes(s);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.getResponseHeaders().set("Cache-Control", "no-store");
        send(ex, body);
    }

    private static long sinceOf(String query) {
        if (query == null || !query.startsWith("since=")) return 0;
        try {
            return Long.parseLong(query.substring("since=".length()));
        } catch (NumberFormatException e) {
            return 0; // a malformed value asks for everything
        }
    }

    private void file(HttpExchange ex) throws IOException {
        String name = ex.getRequestURI().getPath().substring("/console/".length());
        if (name.isEmpty()) name = "index.html";
        String type = FILES.get(name);
        InputStream in = type == null ? null : ConsoleRoutes.class.getResourceAsStream(RESOURCES + name);
        if (in == null) {
            AdminServer.send(ex, 404, "text/plain", "no such console file: " + name + "\n");
            return;
        }
        byte[] body;
        try (in) {
            body = in.readAllBytes();
        }
        ex.getResponseHeaders().set("Content-Type", type);
        ex.getResponseHeaders().set("Cache-Control", "no-cache");
        send(ex, body);
    }

    private void buckets(HttpExchange ex) throws IOException {
        BucketMap map = state.bucketMap();
        if (map == null) {
            AdminServer.send(ex, 503, "text/plain", "the bucket map is being read; try again in a second\n");
            return;
        }
        ex.getResponseHeaders().set("Content-Type", "application/octet-stream");
        ex.getResponseHeaders().set("X-Cairn-Map-Version", Long.toString(map.version()));
        ex.getResponseHeaders().set("X-Cairn-Owners", String.join(",", map.owners()));
        ex.getResponseHeaders().set("Cache-Control", "no-store");
        send(ex, map.cells());
    }

    /** GET /console/api/bucket/N: the router's route, marks, the move in flight and every replicaset's record. */
    private void bucket(HttpExchange ex) throws IOException {
        Router router = state.router();
        int bucket;
        try {
            bucket = Integer.parseInt(ex.getRequestURI().getPath().substring("/console/api/bucket/".length()));
        } catch (NumberFormatException e) {
            bucket = -1;
        }
        if (bucket < 1 || bucket > router.bucketCount()) {
            AdminServer.sendJson(ex, 400, Map.of("error", "INVALID_ARGUMENT", "message",
                    "a bucket is a number from 1 to " + router.bucketCount() + ": use /console/api/bucket/<id>"));
            return;
        }
        BucketRoute route = router.route(bucket);
        Map<String, Object> move = null;
        for (Map<String, Object> m : state.moves()) if (((Number) m.get("bucket")).intValue() == bucket) move = m;
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("bucket", bucket);
        out.put("owner", route.owner());
        out.put("state", route.state() == null ? null : route.state().name());
        out.put("generation", route.generation());
        out.put("marks", BucketMap.markNames(BucketMap.marks(route.state(), route.flags(), move != null,
                router.suspectedBuckets().contains(bucket) || router.doubledBuckets().containsKey(bucket))));
        out.put("move", move);
        String leader = state.coordinatorLeader();
        Map<String, Object> records = leader == null ? null : state.probe().getJson(leader + "/buckets/" + bucket, BUCKET_RECORDS_TIMEOUT).join();
        out.put("records", records);
        if (records == null) out.put("recordsError", "the coordinator leader did not answer; the route above is this router's view");
        AdminServer.sendJson(ex, 200, out);
    }

    /** How often the console's state was gathered (bounded by time, not by the consoles open). */
    public long refreshes() {
        return state.refreshes();
    }

    private static void send(HttpExchange ex, byte[] body) throws IOException {
        ex.sendResponseHeaders(200, body.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(body);
        }
    }

    @Override
    public void close() {
        state.close();
    }
}
