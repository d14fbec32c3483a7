package io.cairn.router.resp;

import io.cairn.core.CairnException;
import io.netty.handler.codec.redis.RedisMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * ACL SETUSER GETUSER DELUSER LIST USERS WHOAMI CAT (issue 26), with Redis 7's reply shapes and
 * error texts. SETUSER and DELUSER compute the new user here, store it through the
 * {@link AclStore} (the coordinator group, so every router follows within about a second) and
 * apply it locally once stored; a rule that does not parse changes nothing.
 */
final class AclCommands {
    private static final Logger log = LoggerFactory.getLogger(AclCommands.class);
    /** Longest user name: user names end up in logs and in the coordinator's settings. */
    static final int MAX_USER_NAME_CHARS = 128;

    private final RespAuth auth;
    private final Predicate<String> knownCommand;
    private final Supplier<Map<String, CommandSpec>> commands;

    AclCommands(RespAuth auth, Supplier<Map<String, CommandSpec>> commands) {
        this.auth = auth;
        this.commands = commands;
        this.knownCommand = name -> commands.get().containsKey(name);
    }

    List<CommandSpec> specs() {
        return List.of(new CommandSpec("acl", -2, List.of("admin", "noscript", "loading", "stale"), 0, 0, 0, this::acl));
    }

    /** ACL WHOAMI and ACL CAT are for everyone authenticated, as in Redis (they reveal nothing of other users). */
    static boolean harmless(CommandArgs args) {
        return args.count() >= 2 && (args.is(1, "whoami") || args.is(1, "cat"));
    }

    private CompletableFuture<RedisMessage> acl(CommandArgs args, ClientSession session) {
        String sub = args.string(1).toLowerCase(Locale.ROOT);
        return switch (sub) {
            case "setuser" -> args.count() < 3 ? arity("setuser") : setUser(args, session);
            case "deluser" -> args.count() < 3 ? arity("deluser") : delUser(args, session);
            case "getuser" -> args.count() != 3 ? arity("getuser") : Replies.done(getUser(args.string(2)));
            case "list" -> Replies.done(list());
            case "users" -> Replies.done(Replies.bulkArray(new ArrayList<>(auth.users().keySet())));
            case "whoami" -> Replies.done(Replies.bulk(session.user()));
            case "cat" -> Replies.done(args.count() == 2 ? Replies.bulkArray(new ArrayList<>(new TreeSet<>(AclCategories.ALL))) : category(args.string(2)));
            default -> Replies.done(Replies.unknownSubcommand(args));
        };
    }

    private static CompletableFuture<RedisMessage> arity(String sub) {
        return Replies.done(Replies.wrongArity("acl|" + sub));
    }

    private CompletableFuture<RedisMessage> setUser(CommandArgs args, ClientSession session) {
        String name = args.string(2);
        if (name.isEmpty() || name.length() > MAX_USER_NAME_CHARS || name.chars().anyMatch(c -> c <= ' ')) {
            return Replies.done(Replies.error("ERR Usernames can't contain spaces or null characters and must be 1 to "
                    + MAX_USER_NAME_CHARS + " characters"));
        }
        List<String> rules = new ArrayList<>();
        for (int i = 3; i < args.count(); i++) rules.add(args.string(i));
        AclUser before = auth.user(name);
        AclUser after;
        try {
            after = (before == null ? AclUser.created(name) : before).apply(rules, knownCommand);
        } catch (IllegalArgumentException e) {
            return Replies.done(Replies.error(e.getMessage()));
        }
        return store(name, after, session);
    }

    private CompletableFuture<RedisMessage> delUser(CommandArgs args, ClientSession session) {
        List<String> names = new ArrayList<>();
        for (int i = 2; i < args.count(); i++) {
            String name = args.string(i);
            if (RespAuth.DEFAULT_USER.equals(name)) return Replies.done(Replies.error("ERR The 'default' user cannot be removed"));
            if (auth.users().containsKey(name) && !names.contains(name)) names.add(name);
        }
        CompletableFuture<Void> all = CompletableFuture.completedFuture(null);
        for (String name : names) {
            all = all.thenCompose(v -> auth.store().save(name, null).thenRun(() -> auth.changed(name, null)));
        }
        return all.thenApply(v -> {
            if (!names.isEmpty()) log.info("ACL: client {} ({}) deleted users {}", session.id(), session.user(), names);
            return Replies.integer(names.size());
        }).exceptionally(AclCommands::notStored);
    }

    private CompletableFuture<RedisMessage> store(String name, AclUser user, ClientSession session) {
        return auth.store().save(name, user.describe()).thenApply(v -> {
            auth.changed(name, user);
            log.info("ACL: client {} ({}) set user '{}' ({}, {} key patterns, commands {})", session.id(), session.user(), name,
                    user.enabled() ? "on" : "off", user.keyPatterns().size(), String.join(" ", user.commandRules()));
            return Replies.OK;
        }).exceptionally(AclCommands::notStored);
    }

    private static RedisMessage notStored(Throwable failure) {
        Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
        if (cause instanceof CairnException e) return Replies.error(e.code(), "ACL change not stored: " + e.getMessage());
        return Replies.error("ERR ACL change not stored: " + cause.getMessage());
    }

    /** Redis 7's layout: flags, passwords, commands, keys, channels, selectors. */
    private RedisMessage getUser(String name) {
        AclUser u = auth.user(name);
        if (u == null) return Replies.NIL;
        List<String> flags = new ArrayList<>();
        flags.add(u.enabled() ? "on" : "off");
        if (u.nopass()) flags.add("nopass");
        List<String> keys = new ArrayList<>();
        for (String p : u.keyPatterns()) keys.add("~" + p);
        return Replies.array(List.of(
                Replies.bulk("flags"), Replies.bulkArray(flags),
                Replies.bulk("passwords"), Replies.bulkArray(new ArrayList<>(u.passwordHashes())),
                Replies.bulk("commands"), Replies.bulk(String.join(" ", u.commandRules())),
                Replies.bulk("keys"), Replies.bulk(String.join(" ", keys)),
                Replies.bulk("channels"), Replies.bulk(""),
                Replies.bulk("selectors"), Replies.EMPTY_ARRAY));
    }

    private RedisMessage list() {
        List<String> lines = new ArrayList<>();
        auth.users().forEach((name, u) -> lines.add("user " + name + " " + u.describe()));
        return Replies.bulkArray(lines);
    }

    private RedisMessage category(String name) {
        String c = name.toLowerCase(Locale.ROOT);
        if (!AclCategories.ALL.contains(c)) return Replies.error("ERR Unknown category '" + name + "'");
        List<String> names = new ArrayList<>();
        for (CommandSpec spec : commands.get().values()) if (AclCategories.of(spec).contains(c)) names.add(spec.name());
        return Replies.bulkArray(names);
    }
}
