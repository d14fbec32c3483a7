package io.cairn.router.resp;

import io.cairn.router.KvBackend;
import io.netty.handler.codec.redis.RedisMessage;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;

/**
 * Connection and server commands: PING ECHO QUIT SELECT CONFIG INFO (DBSIZE lives in
 * {@link KeyspaceCommands}, HELLO and AUTH in {@link AuthCommands}). Only RESP2 and database 0 exist. Clients and tools probe these before any data command (Lettuce
 * sends HELLO 3 and falls back on NOPROTO; redis-benchmark reads CONFIG GET save/appendonly),
 * so the reply shapes follow Redis closely.
 */
final class ServerCommands {
    /**
     * Reported as the Redis version: clients enable features by version number, and these
     * answers follow Redis 7.2's command syntax.
     */
    static final String REDIS_VERSION = "7.2.0";
    private static final List<String> FAST = List.of("fast");

    private final KvBackend backend;
    private final RespConfig config;
    private final ClientRegistry clients;
    private final ClientMetrics metrics;
    private final IntSupplier boundPort;
    private final RespAuth auth;

    ServerCommands(KvBackend backend, RespConfig config, ClientRegistry clients, ClientMetrics metrics, IntSupplier boundPort,
                   RespAuth auth) {
        this.auth = auth;
        this.backend = backend;
        this.config = config;
        this.clients = clients;
        this.metrics = metrics;
        this.boundPort = boundPort;
    }

    List<CommandSpec> specs() {
        return List.of(
                new CommandSpec("ping", -1, FAST, 0, 0, 0, this::ping),
                new CommandSpec("echo", 2, FAST, 0, 0, 0, (a, s) -> Replies.done(Replies.bulk(a.raw(1)))),
                new CommandSpec("quit", -1, AuthCommands.NO_AUTH, 0, 0, 0, this::quit),
                new CommandSpec("select", 2, FAST, 0, 0, 0, this::select),
                new CommandSpec("config", -2, List.of("admin"), 0, 0, 0, this::config),
                new CommandSpec("info", -1, List.of(), 0, 0, 0, this::info));
    }

    private CompletableFuture<RedisMessage> ping(CommandArgs args, ClientSession session) {
        if (args.count() > 2) return Replies.done(Replies.wrongArity("ping"));
        return Replies.done(args.count() == 2 ? Replies.bulk(args.raw(1)) : Replies.PONG);
    }

    private CompletableFuture<RedisMessage> quit(CommandArgs args, ClientSession session) {
        session.requestQuit();
        return Replies.done(Replies.OK);
    }

    private CompletableFuture<RedisMessage> select(CommandArgs args, ClientSession session) {
        long db = args.longAt(1);
        return Replies.done(db == 0 ? Replies.OK : Replies.error("ERR DB index is out of range"));
    }

    private CompletableFuture<RedisMessage> config(CommandArgs args, ClientSession session) {
        if (args.is(1, "get")) {
            if (args.count() < 3) return Replies.done(Replies.wrongArity("config|get"));
            return Replies.done(configGet(args));
        }
        if (args.is(1, "resetstat")) return Replies.done(Replies.OK);
        if (args.is(1, "set") || args.is(1, "rewrite")) {
            return Replies.done(Replies.error("ERR CONFIG " + args.string(1).toUpperCase(Locale.ROOT)
                    + " is not supported; Cairn is configured at startup"));
        }
        return Replies.done(Replies.unknownSubcommand(args));
    }

    /** Pairs of name and value for every parameter matching any of the patterns. */
    private RedisMessage configGet(CommandArgs args) {
        Map<String, String> parameters = configParameters();
        List<RedisMessage> pairs = new ArrayList<>();
        for (Map.Entry<String, String> p : parameters.entrySet()) {
            for (int i = 2; i < args.count(); i++) {
                if (Glob.matches(args.string(i), p.getKey())) {
                    pairs.add(Replies.bulk(p.getKey()));
                    pairs.add(Replies.bulk(p.getValue()));
                    break;
                }
            }
        }
        return Replies.array(pairs);
    }

    private Map<String, String> configParameters() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("save", "");
        p.put("appendonly", "no");
        p.put("databases", "1");
        p.put("port", Integer.toString(boundPort.getAsInt()));
        p.put("bind", config.host());
        p.put("timeout", Long.toString(config.idleTimeout().toSeconds()));
        p.put("maxmemory", "0");
        p.put("maxmemory-policy", "noeviction");
        p.put("proto-max-bulk-len", Integer.toString(config.maxBulkBytes()));
        p.put("maxclients", Integer.toString(config.maxClients()));
        p.put("client-query-buffer-limit", Long.toString(config.queryBufferLimitBytes()));
        // Only the normal class exists here (no replicas, no pub/sub).
        p.put("client-output-buffer-limit", "normal " + config.outputHardLimitBytes() + " " + config.outputSoftLimitBytes()
                + " " + config.outputSoftLimit().toSeconds());
        p.put("maxmemory-clients", Long.toString(config.maxMemoryClientsBytes()));
        p.put("cluster-enabled", "no");
        return p;
    }

    /** INFO [section ...]: our server and clients sections, the backend's, and keyspace. */
    private CompletableFuture<RedisMessage> info(CommandArgs args, ClientSession session) {
        List<String> wanted = new ArrayList<>();
        for (int i = 1; i < args.count(); i++) wanted.add(args.string(i).toLowerCase(Locale.ROOT));
        Map<String, Map<String, String>> sections = new LinkedHashMap<>();
        sections.put("server", serverSection());
        sections.put("clients", clientsSection());
        sections.put("memory", RouterInfo.memory(metrics.bufferBytes()));
        sections.put("stats", statsSection());
        sections.put("replication", RouterInfo.replication());
        backend.info().forEach((name, entries) ->
                sections.computeIfAbsent(name.toLowerCase(Locale.ROOT), n -> new LinkedHashMap<>()).putAll(entries));
        CompletableFuture<KvBackend.KeyspaceStats> keys = InfoText.wants(wanted, "keyspace") || InfoText.wants(wanted, "stats")
                ? backend.keyspaceStats() : CompletableFuture.completedFuture(null);
        return keys.thenApply(k -> {
            if (k != null) {
                Map<String, String> stats = sections.get("stats");
                stats.put("expired_keys", Long.toString(k.expiredKeys()));
                stats.put("keyspace_hits", Long.toString(k.hits()));
                stats.put("keyspace_misses", Long.toString(k.misses()));
            }
            // As Redis: an empty database has no db0 line, only the section's title.
            if (k != null && InfoText.wants(wanted, "keyspace")) sections.put("keyspace", k.keys() == 0 ? Map.of()
                    : Map.of("db0", "keys=" + k.keys() + ",expires=" + k.expires() + ",avg_ttl=" + k.avgTtlMs()));
            return Replies.bulk(InfoText.render(sections, wanted));
        });
    }

    /** Redis's fields, plus the sums of the buffers (Redis reports the largest recent ones instead). */
    private Map<String, String> clientsSection() {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("connected_clients", Integer.toString(clients.size()));
        c.put("maxclients", Integer.toString(config.maxClients()));
        c.put("clients_query_buffer_bytes", Long.toString(metrics.queryBufferBytes()));
        c.put("clients_output_buffer_bytes", Long.toString(metrics.outputBufferBytes()));
        return c;
    }

    /** Redis 7.2's names for the first three; one counter per limit after them. */
    private Map<String, String> statsSection() {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("total_connections_received", Long.toString(metrics.acceptedConnections()));
        s.put("total_commands_processed", Long.toString(metrics.commandsProcessed()));
        s.put("evicted_keys", "0"); // Cairn never evicts
        s.put("rejected_connections", Long.toString(metrics.refusedConnections()));
        s.put("client_query_buffer_limit_disconnections", Long.toString(metrics.disconnected(ClientLimit.QUERY_BUFFER)));
        s.put("client_output_buffer_limit_disconnections",
                Long.toString(metrics.disconnected(ClientLimit.OUTPUT_HARD) + metrics.disconnected(ClientLimit.OUTPUT_SOFT)));
        s.put("evicted_clients", Long.toString(metrics.disconnected(ClientLimit.MAXMEMORY_CLIENTS)));
        s.put("timeout_disconnections", Long.toString(metrics.disconnected(ClientLimit.IDLE_TIMEOUT)));
        // Redis 7.2's names: failed AUTHs (rate-limited ones included), and NOPERM refusals by command and by key
        s.put("acl_access_denied_auth", Long.toString(auth.failures() + auth.refusedByLimit()));
        s.put("acl_access_denied_cmd", Long.toString(auth.deniedCommands()));
        s.put("acl_access_denied_key", Long.toString(auth.deniedKeys()));
        return s;
    }

    private Map<String, String> serverSection() {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("redis_version", REDIS_VERSION);
        s.put("redis_mode", "standalone");
        s.put("server_name", "cairn");
        s.putAll(RouterInfo.process());
        s.put("tcp_port", Integer.toString(boundPort.getAsInt()));
        s.putAll(RouterInfo.uptime());
        return s;
    }
}
