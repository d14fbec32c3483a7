package io.cairn.server.process;

import io.cairn.coordinator.CoordinatorClient;
import io.cairn.core.CairnException;
import io.cairn.router.resp.AclStore;
import io.cairn.router.resp.RespAuth;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A router's ACL users, kept in the coordinator group (issue 26): every user is one run-time
 * setting {@code acl.user.<name>} whose value is the user's rule text (passwords as SHA-256
 * digests). The settings are replicated by the coordinator's Raft log and in its snapshots, so a
 * new coordinator leader has them and every router reads the same users; this follower reads them
 * once a second, so a change made on one router holds on every router within about a second.
 *
 * <p>Stores run on this follower's one thread, never on a RESP event loop (a write waits for a
 * Raft commit). Two routers changing one user at the same moment: the last write wins whole (each
 * writes the complete rule text it computed).
 */
final class AclFollower implements AclStore, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(AclFollower.class);
    static final String KEY_PREFIX = "acl.user.";
    static final long READ_INTERVAL_MS = 1_000;

    private final String routerId;
    private final CoordinatorClient coordinator;
    private final RespAuth auth;
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "cairn-acl-follower");
        t.setDaemon(true);
        return t;
    });
    private volatile boolean unreadLogged;

    /** Also told every set of run-time settings read (a router follows {@code router.discoveryIntervalMs} there). */
    private final Consumer<Map<String, String>> onSettings;

    AclFollower(String routerId, CoordinatorClient coordinator, RespAuth auth) {
        this(routerId, coordinator, auth, settings -> { });
    }

    AclFollower(String routerId, CoordinatorClient coordinator, RespAuth auth, Consumer<Map<String, String>> onSettings) {
        this.routerId = routerId;
        this.coordinator = coordinator;
        this.auth = auth;
        this.onSettings = onSettings;
        auth.useStore(this);
    }

    /** Reads the users now (so that the RESP port opens with them), then once a second. */
    AclFollower start() {
        read();
        thread.scheduleWithFixedDelay(this::read, READ_INTERVAL_MS, READ_INTERVAL_MS, TimeUnit.MILLISECONDS);
        return this;
    }

    @Override
    public CompletableFuture<Void> save(String name, String rules) {
        return CompletableFuture.runAsync(() -> coordinator.setSettings(Map.of(KEY_PREFIX + name, rules == null ? "" : rules)), thread);
    }

    private void read() {
        long mark = auth.changeMark();
        Map<String, String> settings;
        try {
            settings = coordinator.settings();
        } catch (CairnException | IllegalStateException e) {
            if (!unreadLogged) log.info("router {}: ACL users not read from the coordinator ({}); keeping the last ones", routerId, e.getMessage());
            unreadLogged = true;
            return;
        } catch (RuntimeException e) {
            log.warn("router {}: reading ACL users failed; keeping the last ones", routerId, e);
            return;
        }
        unreadLogged = false;
        Map<String, String> users = new TreeMap<>();
        settings.forEach((key, value) -> {
            if (key.startsWith(KEY_PREFIX)) users.put(key.substring(KEY_PREFIX.length()), value);
        });
        auth.replaceUsers(users, mark);
        onSettings.accept(settings);
    }

    @Override
    public void close() {
        thread.shutdownNow();
        try {
            thread.awaitTermination(2, TimeUnit.SECONDS); // a read in flight ends before the coordinator client closes
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
