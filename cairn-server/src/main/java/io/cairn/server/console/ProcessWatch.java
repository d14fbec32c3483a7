package io.cairn.server.console;

import io.cairn.server.admin.AdminHttps;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The last {@code /info} of each Cairn process the console watches, refreshed in the background
 * without ever making the console wait: each refresh starts a probe of every process whose last
 * probe has ended, and reads what the probes have answered so far. So a process whose
 * {@code /info} is slow (a storage node holding half a million bucket records takes seconds on a
 * busy host) is shown with its last answer rather than as down, while a stopped one (connection
 * refused) shows as down within a second.
 *
 * <p>A process is up while its last probe answered and that answer is younger than
 * {@link #STALE_MS}; down when its last probe failed (refused, timed out after
 * {@link #PROBE_TIMEOUT_MS}, not 200) or its last answer is older than that.
 */
final class ProcessWatch {
    /** Long enough for a slow but working process; a hung one is declared down after this. */
    static final long PROBE_TIMEOUT_MS = 5_000;
    static final long STALE_MS = 15_000;

    private static final class Watched {
        volatile Map<String, Object> info;
        volatile long answeredAtMs;
        volatile boolean failed;
        volatile boolean inFlight;
    }

    private final ClusterProbe probe;
    private final Map<String, Watched> watched = new ConcurrentHashMap<>();

    ProcessWatch(ClusterProbe probe) {
        this.probe = probe;
    }

    /** Starts a probe of {@code id} at host:adminPort unless one is still in flight; completes when it ends. */
    CompletableFuture<?> probe(String id, String host, int adminPort) {
        Watched w = watched.computeIfAbsent(id, k -> new Watched());
        if (w.inFlight) return CompletableFuture.completedFuture(null);
        w.inFlight = true;
        return probe.getJson(AdminHttps.base(host, adminPort) + "/info", Duration.ofMillis(PROBE_TIMEOUT_MS)).whenComplete((info, e) -> {
            if (info != null) {
                w.info = info;
                w.answeredAtMs = System.currentTimeMillis();
            }
            w.failed = info == null;
            w.inFlight = false;
        });
    }

    /** The process's last answer while it counts as up, else null (down, or never answered yet). */
    Map<String, Object> upInfo(String id, long nowMs) {
        Watched w = watched.get(id);
        if (w == null || w.failed || w.info == null || nowMs - w.answeredAtMs > STALE_MS) return null;
        return w.info;
    }

    /** Forgets processes no longer in the topology. */
    void retain(Set<String> ids) {
        watched.keySet().retainAll(ids);
    }
}
