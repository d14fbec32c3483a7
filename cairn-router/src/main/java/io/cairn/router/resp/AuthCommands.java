package io.cairn.router.resp;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.netty.handler.codec.redis.RedisMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * AUTH and HELLO (issue 26): the commands that authenticate a connection, with Redis 7's replies
 * and error texts. Both carry the {@code no_auth} flag, as does QUIT: the only commands a
 * connection may run before it is authenticated ({@link CommandDispatcher}). Only RESP2 exists, so
 * HELLO 3 answers NOPROTO before looking at AUTH (as Redis checks the version first); clients then
 * fall back to RESP2 and AUTH.
 */
final class AuthCommands {
    private static final Logger log = LoggerFactory.getLogger(AuthCommands.class);
    /** Flags of the commands a connection may run before it is authenticated. */
    static final List<String> NO_AUTH = List.of("noscript", "loading", "stale", "fast", "no_auth", "allow_busy");
    static final String NOAUTH = "NOAUTH Authentication required.";
    static final String WRONGPASS = "WRONGPASS invalid username-password pair or user is disabled.";
    static final String HELLO_NOAUTH = "NOAUTH HELLO must be called with the client already authenticated, otherwise the "
            + "HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol "
            + "version at the same time";

    private final RespAuth auth;

    AuthCommands(RespAuth auth) {
        this.auth = auth;
    }

    List<CommandSpec> specs() {
        return List.of(
                new CommandSpec("hello", -1, NO_AUTH, 0, 0, 0, this::hello),
                new CommandSpec("auth", -2, NO_AUTH, 0, 0, 0, this::auth));
    }

    /** AUTH [username] password. */
    private CompletableFuture<RedisMessage> auth(CommandArgs args, ClientSession session) {
        if (args.count() > 3) return Replies.done(Replies.syntaxError());
        if (args.count() == 2 && !auth.required()) {
            return Replies.done(Replies.error("ERR AUTH <password> called without any password configured "
                    + "for the default user. Are you sure your configuration is correct?"));
        }
        String user = args.count() == 3 ? args.string(1) : RespAuth.DEFAULT_USER;
        RedisMessage refused = authenticate(session, user, args.raw(args.count() - 1));
        return Replies.done(refused != null ? refused : Replies.OK);
    }

    /** HELLO [protover [AUTH username password] [SETNAME clientname]]: RESP2 only. */
    private CompletableFuture<RedisMessage> hello(CommandArgs args, ClientSession session) {
        if (args.count() >= 2) {
            Long version = parseLongOrNull(args, 1);
            if (version == null) {
                return Replies.done(Replies.error("ERR Protocol version is not an integer or out of range"));
            }
            if (version != 2) return Replies.done(Replies.error("NOPROTO unsupported protocol version"));
        }
        String name = null;
        for (int i = 2; i < args.count(); i++) {
            int more = args.count() - 1 - i;
            if (args.is(i, "auth") && more >= 2) {
                RedisMessage refused = authenticate(session, args.string(i + 1), args.raw(i + 2));
                if (refused != null) return Replies.done(refused);
                i += 2;
            } else if (args.is(i, "setname") && more >= 1) {
                name = args.string(++i);
                if (!ClientCommands.validName(name)) return Replies.done(ClientCommands.invalidName());
            } else {
                return Replies.done(Replies.error("ERR Syntax error in HELLO option '" + args.printable(i) + "'"));
            }
        }
        if (!session.authenticated()) return Replies.done(Replies.error(HELLO_NOAUTH));
        if (name != null) session.name(name);
        return Replies.done(helloReply(session));
    }

    /** Null when {@code user} is now the session's user; the error reply otherwise (the session stays as it was). */
    private RedisMessage authenticate(ClientSession session, String user, byte[] password) {
        String host = session.host();
        return switch (auth.authenticate(user, password, host)) {
            case OK -> {
                session.authenticated(true);
                session.user(user);
                yield null;
            }
            case WRONGPASS -> {
                log.debug("client {} from {}: failed AUTH as '{}'", session.id(), host, user);
                yield Replies.error(WRONGPASS);
            }
            case LIMITED -> Replies.error(ErrorCode.AUTH_RATE_LIMITED,
                    "too many failed AUTH attempts from " + host + "; retry in " + auth.retryAfterSeconds(host) + " s");
        };
    }

    private static RedisMessage helloReply(ClientSession session) {
        return Replies.array(List.of(
                Replies.bulk("server"), Replies.bulk("redis"),
                Replies.bulk("version"), Replies.bulk(ServerCommands.REDIS_VERSION),
                Replies.bulk("proto"), Replies.integer(2),
                Replies.bulk("id"), Replies.integer(session.id()),
                Replies.bulk("mode"), Replies.bulk("standalone"),
                Replies.bulk("role"), Replies.bulk("master"),
                Replies.bulk("modules"), Replies.EMPTY_ARRAY));
    }

    private static Long parseLongOrNull(CommandArgs args, int index) {
        try {
            return args.longAt(index);
        } catch (CairnException e) {
            if (e.code() == ErrorCode.NOT_INTEGER) return null;
            throw e;
        }
    }
}
