package io.cairn.router.resp;

import io.cairn.core.CairnException;
import io.cairn.router.KvBackend;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.IntSupplier;

/**
 * The command table: finds a command by name (any case), checks its arity and runs it. Every
 * outcome is a reply: bad arguments ({@link CairnException}) become their catalogue error,
 * and a failed backend future or a bug becomes "ERR internal error: ...", so one command can
 * never take its connection down. Shared by all connections; stateless apart from the table.
 */
final class CommandDispatcher {
    private static final Logger log = LoggerFactory.getLogger(CommandDispatcher.class);

    private final Map<String, CommandSpec> commands = new TreeMap<>();
    private final Transactions transactions;
    private final RespAuth auth;
    private final ClientMetrics metrics;

    CommandDispatcher(KvBackend cluster, RespConfig config, ClientRegistry clients, ClientMetrics metrics, IntSupplier boundPort) {
        this(cluster, config, clients, metrics, boundPort, RespAuth.open());
    }

    CommandDispatcher(KvBackend cluster, RespConfig config, ClientRegistry clients, ClientMetrics metrics, IntSupplier boundPort,
                      RespAuth auth) {
        this.auth = auth;
        this.metrics = metrics;
        // Every command reaches the cluster through the recording backend: EXEC gathers a transaction's operations there.
        Transactions.Recording backend = new Transactions.Recording(cluster);
        transactions = new Transactions(backend);
        register(new AuthCommands(auth).specs());
        register(new AclCommands(auth, () -> commands).specs());
        register(transactions.specs());
        register(List.of(new CommandSpec("exec", 1, List.of("noscript", "loading", "stale", "skip_slowlog"), 0, 0, 0,
                (a, s) -> transactions.exec(s, (spec, queued) -> run(spec, queued, s)))));
        register(new StringCommands(backend).specs());
        register(new StringEditCommands(backend).specs());
        register(new ServerCommands(backend, config, clients, metrics, boundPort, auth).specs());
        register(new KeyspaceCommands(backend).specs());
        register(new KeyCopyCommands(backend).specs());
        register(new LcsCommands(backend).specs());
        register(new HashCommands(backend).specs());
        CollectionOps collections = new CollectionOps(backend);
        register(new ListCommands(collections).specs());
        register(new BlockingListCommands(collections).specs());
        register(new SetCommands(collections).specs());
        register(new ZSetCommands(collections).specs());
        register(new BlockingZSetCommands(collections).specs());
        register(new ZSetAlgebraCommands(collections).specs());
        register(new ObjectCommands(collections).specs());
        register(new DumpCommands(collections).specs());
        register(new ClientCommands(clients).specs());
        register(List.of(new CommandSpec("command", -1, List.of("loading", "stale"), 0, 0, 0, this::command)));
    }

    private void register(List<CommandSpec> specs) {
        for (CommandSpec spec : specs) commands.put(spec.name(), spec);
    }

    /** A new connection starts authenticated only when no password is required (the default user is nopass). */
    void welcome(ClientSession session) {
        session.authenticated(!auth.required());
    }

    /** Redis's order: unknown command, then arity, then NOAUTH for anything but the no_auth commands. */
    CompletableFuture<RedisMessage> dispatch(CommandArgs args, ClientSession session) {
        if (metrics != null) metrics.countCommand();
        CommandSpec spec = commands.get(args.name());
        if (spec == null || !spec.acceptsArgCount(args.count())) {
            Transactions.failQueued(session);
            return Replies.done(spec == null ? Replies.unknownCommand(args) : Replies.wrongArity(spec.name()));
        }
        if (!spec.flags().contains("no_auth")) {
            RedisMessage refused = AccessCheck.refusal(auth, spec, args, session);
            if (refused != null) {
                Transactions.failQueued(session);
                return Replies.done(refused);
            }
        }
        if (Transactions.queues(session, spec.name())) return Replies.done(transactions.queue(session, spec, args));
        return run(spec, args, session);
    }

    private CompletableFuture<RedisMessage> run(CommandSpec spec, CommandArgs args, ClientSession session) {
        try {
            return spec.handler().handle(args, session).exceptionally(this::failureReply);
        } catch (RuntimeException e) {
            return Replies.done(failureReply(e));
        }
    }

    private RedisMessage failureReply(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        if (cause instanceof CairnException expected) {
            log.debug("command refused: {}", expected.redisMessage());
            return Replies.error(expected);
        }
        log.warn("command failed", cause);
        return Replies.error("ERR internal error: " + cause);
    }

    /** COMMAND, COMMAND COUNT / LIST / INFO name... / DOCS (empty: we ship no docs). */
    private CompletableFuture<RedisMessage> command(CommandArgs args, ClientSession session) {
        if (args.count() == 1) return Replies.done(describe(new ArrayList<>(commands.values())));
        String sub = args.string(1).toLowerCase(Locale.ROOT);
        return Replies.done(switch (sub) {
            case "count" -> Replies.integer(commands.size());
            case "list" -> Replies.bulkArray(new ArrayList<>(commands.keySet()));
            case "docs" -> Replies.EMPTY_ARRAY;
            case "info" -> info(args);
            default -> Replies.unknownSubcommand(args);
        });
    }

    private RedisMessage info(CommandArgs args) {
        List<RedisMessage> entries = new ArrayList<>();
        for (int i = 2; i < args.count(); i++) {
            CommandSpec spec = commands.get(args.string(i).toLowerCase(Locale.ROOT));
            entries.add(spec == null ? Replies.NIL : describe(spec));
        }
        return Replies.array(entries);
    }

    private static RedisMessage describe(List<CommandSpec> specs) {
        List<RedisMessage> entries = new ArrayList<>(specs.size());
        for (CommandSpec spec : specs) entries.add(describe(spec));
        return Replies.array(entries);
    }

    /** Redis 7's layout: name, arity, flags, first key, last key, step, ACL categories, tips, key specs, subcommands. */
    private static RedisMessage describe(CommandSpec spec) {
        List<RedisMessage> flags = new ArrayList<>();
        for (String flag : spec.flags()) flags.add(new SimpleStringRedisMessage(flag));
        return Replies.array(List.of(
                Replies.bulk(spec.name()), Replies.integer(spec.arity()), Replies.array(flags),
                Replies.integer(spec.firstKey()), Replies.integer(spec.lastKey()), Replies.integer(spec.keyStep()),
                Replies.EMPTY_ARRAY, Replies.EMPTY_ARRAY, Replies.EMPTY_ARRAY, Replies.EMPTY_ARRAY));
    }
}
