package io.cairn.server.control;

import com.sun.net.httpserver.HttpExchange;
import io.cairn.archive.StoreThrottle;
import io.cairn.coordinator.CoordinatorClient;
import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.rebalancer.MoverService;
import io.cairn.server.admin.AdminServer;
import io.cairn.server.config.ClusterConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A coordinator node's side of the run-time settings ({@link LiveSettings}): its admin port's
 * {@code GET /settings} (every setting, its value and source) and {@code POST /settings?NAME=VALUE&...}
 * (checked, then written through the coordinator group's Raft log), and, about once a second, the
 * stored values applied to this node's rebalancer, so that whichever node leads next runs with them.
 */
public final class LiveSettingsFollower implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LiveSettingsFollower.class);
    private static final long FOLLOW_EVERY_MS = 1_000;

    private final String nodeId;
    private final ClusterConfig file;
    private final CoordinatorClient coordinator;
    private final MoverService mover;
    /** The archive tier's store throttle of this process, or null without an archive tier. */
    private final StoreThrottle archiveThrottle;
    private final ScheduledExecutorService timer;
    /** The last stored values that could not be applied (logged once), or null. */
    private volatile Map<String, String> refused;

    public LiveSettingsFollower(String nodeId, ClusterConfig file, CoordinatorClient coordinator, MoverService mover,
                         StoreThrottle archiveThrottle) {
        this.nodeId = nodeId;
        this.file = file;
        this.coordinator = coordinator;
        this.mover = mover;
        this.archiveThrottle = archiveThrottle;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "cairn-settings-" + nodeId);
            t.setDaemon(true);
            return t;
        });
    }

    public void start() {
        timer.scheduleWithFixedDelay(this::follow, 0, FOLLOW_EVERY_MS, TimeUnit.MILLISECONDS);
    }

    private void follow() {
        Map<String, String> values;
        try {
            values = coordinator.settings();
        } catch (CairnException e) {
            log.debug("coordinator {}: run-time settings not read: {}", nodeId, e.getMessage());
            return; // no leader now: the next round reads them
        }
        try {
            apply(values);
        } catch (IllegalArgumentException e) {
            // checked before they were stored, so only a node of another version can disagree: keep what runs
            if (!values.equals(refused)) log.warn("coordinator {}: run-time settings {} not applied: {}", nodeId, values, e.getMessage());
            refused = values;
        }
    }

    private void apply(Map<String, String> values) {
        mover.applySettings(LiveSettings.apply(file, values).moverSettings());
        if (archiveThrottle != null) archiveThrottle.setRates(LiveSettings.archiveRates(file, values));
    }

    /** GET /settings, POST /settings?NAME=VALUE&... (VALUE "default": the config file's value again). */
    public void request(HttpExchange ex) throws IOException {
        try {
            if ("GET".equals(ex.getRequestMethod())) {
                AdminServer.sendJson(ex, 200, LiveSettings.show(file, coordinator.settings()));
            } else if ("POST".equals(ex.getRequestMethod())) {
                Map<String, String> stored = LiveSettings.check(file, coordinator.settings(), changes(ex.getRequestURI().getRawQuery()));
                Map<String, String> after = coordinator.setSettings(stored);
                apply(after);
                log.info("coordinator {}: run-time settings changed: {}", nodeId, stored); // not all of them: ACL users' digests are among them
                AdminServer.sendJson(ex, 200, LiveSettings.show(file, after));
            } else {
                AdminServer.send(ex, 405, "text/plain", "use GET /settings or POST /settings?NAME=VALUE\n");
            }
        } catch (CairnException e) {
            AdminServer.send(ex, e.code() == ErrorCode.INVALID_CONFIG ? 400 : 503, "text/plain", e.getMessage() + "\n");
        }
    }

    /** "a=1&b=2" as a map, in order; a part without '=' is a name with no value (refused by the check). */
    private static Map<String, String> changes(String rawQuery) {
        Map<String, String> out = new LinkedHashMap<>();
        if (rawQuery == null || rawQuery.isEmpty()) return out;
        for (String part : rawQuery.split("&")) {
            int eq = part.indexOf('=');
            String name = URLDecoder.decode(eq < 0 ? part : part.substring(0, eq), StandardCharsets.UTF_8);
            out.put(name, eq < 0 ? null : URLDecoder.decode(part.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return out;
    }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            // a read in flight ends before the coordinator client it uses is closed (else Ratis logs it at ERROR)
            timer.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
