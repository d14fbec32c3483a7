package io.cairn.router.resp;

import io.netty.handler.codec.redis.RedisMessage;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The check every command but AUTH, HELLO and QUIT passes before it runs: the connection is
 * authenticated as a user that still exists and is on (else NOAUTH: a user deleted or switched
 * off loses its connections' rights at once, as Redis closes them), the user's command rules
 * allow the command, and its key patterns match every key the command names (positions from the
 * command's key spec). Texts as Redis 7.2 words them.
 */
final class AccessCheck {
    /** Categories per command name, computed once (the command table does not change). */
    private static final Map<String, Set<String>> CATEGORIES = new ConcurrentHashMap<>();

    private AccessCheck() {}

    /** Null when the command may run; the error reply otherwise. */
    static RedisMessage refusal(RespAuth auth, CommandSpec spec, CommandArgs args, ClientSession session) {
        if (!session.authenticated()) return Replies.error(AuthCommands.NOAUTH);
        AclUser user = auth.user(session.user());
        if (user == null || !user.enabled()) {
            session.authenticated(false);
            return Replies.error(AuthCommands.NOAUTH);
        }
        if (spec.name().equals("acl") && AclCommands.harmless(args)) return null;
        Set<String> categories = CATEGORIES.computeIfAbsent(spec.name(), n -> AclCategories.of(spec));
        if (!user.mayRun(spec.name(), categories)) {
            auth.countDenied(false);
            return Replies.error("NOPERM User " + user.name() + " has no permissions to run the '" + spec.name() + "' command");
        }
        if (user.keyPatterns().contains("*")) return null;
        java.util.List<Integer> positions = new java.util.ArrayList<>();
        int last = spec.firstKey() <= 0 ? -1 : spec.lastKey() < 0 ? args.count() + spec.lastKey() : Math.min(spec.lastKey(), args.count() - 1);
        for (int i = spec.firstKey(); i > 0 && i <= last; i += Math.max(1, spec.keyStep())) positions.add(i);
        // Keys after a numkeys argument (ZUNION, ZINTERSTORE...) are checked too, or a key pattern could be read around.
        if (spec.movableKeys() != null) positions.addAll(spec.movableKeys().positions(args));
        for (int i : positions) {
            if (!user.mayAccess(new String(args.raw(i), StandardCharsets.UTF_8))) {
                auth.countDenied(true);
                return Replies.error("NOPERM No permissions to access a key");
            }
        }
        return null;
    }
}
