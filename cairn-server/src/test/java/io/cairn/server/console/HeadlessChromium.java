package io.cairn.server.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.awaitility.Awaitility.await;

/**
 * A real Chromium (Debian's {@code chromium}), headless, driven over the DevTools protocol with
 * the JDK's own WebSocket client: no Selenium, no Playwright, nothing downloaded. Enough of the
 * protocol for a test: open a page, evaluate JavaScript in it, take a screenshot.
 */
final class HeadlessChromium implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** A loaded machine starts a browser slowly; one call is answered in far less. */
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);

    private final Process process;
    private final WebSocket socket;
    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();

    private HeadlessChromium(Process process, WebSocket socket) {
        this.process = process;
        this.socket = socket;
    }

    /** Starts {@code chromium} with its profile in {@code profile} and a window of the given size, and attaches to its page. */
    static HeadlessChromium start(Path chromium, Path profile, int width, int height) throws Exception {
        Process p = new ProcessBuilder(chromium.toString(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--disable-extensions", "--remote-debugging-port=0", "--remote-allow-origins=*", "--user-data-dir=" + profile,
                "--window-size=" + width + "," + height, "--hide-scrollbars", "about:blank")
                .redirectErrorStream(true).redirectOutput(profile.resolveSibling("chromium.log").toFile()).start();
        try {
            Path portFile = profile.resolve("DevToolsActivePort");
            await().atMost(START_TIMEOUT).pollInterval(Duration.ofMillis(100))
                    .until(() -> Files.exists(portFile) && Files.readAllLines(portFile).size() >= 2 || !p.isAlive());
            if (!p.isAlive()) throw new IllegalStateException("chromium exited at start: see " + profile.resolveSibling("chromium.log"));
            int port = Integer.parseInt(Files.readAllLines(portFile).get(0).trim());
            HttpClient http = HttpClient.newHttpClient();
            String pages = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/json/list")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            String page = null;
            for (JsonNode t : JSON.readTree(pages)) if ("page".equals(t.path("type").asText())) page = t.path("webSocketDebuggerUrl").asText();
            if (page == null) throw new IllegalStateException("chromium shows no page target: " + pages);
            Listener listener = new Listener();
            WebSocket ws = http.newWebSocketBuilder().buildAsync(URI.create(page), listener).get(30, TimeUnit.SECONDS);
            HeadlessChromium browser = new HeadlessChromium(p, ws);
            listener.browser = browser;
            return browser;
        } catch (Exception | Error e) {
            p.destroyForcibly();
            throw e;
        }
    }

    /** Opens {@code url} in the page (returns once the navigation is committed; scripts then run on their own). */
    void open(String url) throws Exception {
        call("Page.navigate", Map.of("url", url));
    }

    /** The value of a JavaScript expression in the page (JSON-able values only). */
    JsonNode eval(String expression) throws Exception {
        JsonNode r = call("Runtime.evaluate", Map.of("expression", expression, "returnByValue", true));
        if (r.has("exceptionDetails")) throw new IllegalStateException("page script failed: " + r.path("exceptionDetails"));
        return r.path("result").path("value");
    }

    /** A PNG of the whole page, also what lies below the window. */
    void screenshot(Path file) throws Exception {
        int width = eval("document.documentElement.scrollWidth").asInt();
        int height = eval("document.documentElement.scrollHeight").asInt();
        JsonNode r = call("Page.captureScreenshot", Map.of("format", "png", "captureBeyondViewport", true,
                "clip", Map.of("x", 0, "y", 0, "width", width, "height", height, "scale", 1)));
        Files.createDirectories(file.getParent());
        Files.write(file, Base64.getDecoder().decode(r.path("data").asText()));
    }

    private JsonNode call(String method, Map<String, Object> params) throws Exception {
        int id = ids.incrementAndGet();
        CompletableFuture<JsonNode> answer = new CompletableFuture<>();
        pending.put(id, answer);
        ObjectNode message = JSON.createObjectNode().put("id", id).put("method", method);
        message.set("params", JSON.valueToTree(params));
        socket.sendText(JSON.writeValueAsString(message), true).get(CALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        JsonNode reply = answer.get(CALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        if (reply.has("error")) throw new IllegalStateException(method + " failed: " + reply.path("error"));
        return reply.path("result");
    }

    private void answered(String text) {
        try {
            JsonNode message = JSON.readTree(text);
            if (!message.has("id")) return; // an event: none subscribed to
            CompletableFuture<JsonNode> f = pending.remove(message.path("id").asInt());
            if (f != null) f.complete(message);
        } catch (IOException e) {
            throw new IllegalStateException("chromium sent what is not JSON: " + text, e);
        }
    }

    /** Joins a message's frames (a screenshot arrives in many). */
    private static final class Listener implements WebSocket.Listener {
        private final StringBuilder frames = new StringBuilder();
        volatile HeadlessChromium browser;

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            frames.append(data);
            if (last) {
                String message = frames.toString();
                frames.setLength(0);
                browser.answered(message);
            }
            ws.request(1);
            return null;
        }
    }

    @Override
    public void close() throws InterruptedException {
        socket.abort();
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
}
