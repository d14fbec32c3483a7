package io.cairn.router.resp;

import io.netty.handler.codec.redis.RedisMessage;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/** CLIENT SETNAME GETNAME ID INFO LIST SETINFO HELP. */
final class ClientCommands {
    private final ClientRegistry clients;

    ClientCommands(ClientRegistry clients) {
        this.clients = clients;
    }

    List<CommandSpec> specs() {
        return List.of(new CommandSpec("client", -2, List.of("admin"), 0, 0, 0, this::client));
    }

    private CompletableFuture<RedisMessage> client(CommandArgs args, ClientSession session) {
        String sub = args.string(1).toLowerCase(java.util.Locale.ROOT);
        int expected = switch (sub) {
            case "setname" -> 3;
            case "setinfo" -> 4;
            case "getname", "id", "info", "list", "help" -> 2;
            default -> -1;
        };
        if (expected < 0) return Replies.done(Replies.unknownSubcommand(args));
        if (args.count() != expected) return Replies.done(Replies.wrongArity("client|" + sub));
        return Replies.done(switch (sub) {
            case "setname" -> setName(session, args.string(2));
            case "setinfo" -> setInfo(args);
            case "getname" -> session.name() == null ? Replies.NIL : Replies.bulk(session.name());
            case "id" -> Replies.integer(session.id());
            case "info" -> Replies.bulk(session.describe(clients.nanoTime()) + "\n");
            case "list" -> Replies.bulk(list());
            default -> Replies.bulkArray(List.of(
                    "CLIENT <subcommand> [<arg> ...]. Subcommands are:",
                    "GETNAME", "SETNAME <name>", "ID", "INFO", "LIST", "SETINFO <attr> <value>", "HELP"));
        });
    }

    private static RedisMessage setName(ClientSession session, String name) {
        if (!validName(name)) return invalidName();
        session.name(name);
        return Replies.OK;
    }

    /** Client libraries announce themselves (Jedis, Lettuce); accepted and not kept. */
    private static RedisMessage setInfo(CommandArgs args) {
        if (args.is(2, "lib-name") || args.is(2, "lib-ver")) return Replies.OK;
        return Replies.error("ERR Unrecognized option '" + args.printable(2) + "'");
    }

    private String list() {
        StringBuilder text = new StringBuilder();
        long now = clients.nanoTime();
        for (ClientSession s : clients.sessions()) text.append(s.describe(now)).append('\n');
        return text.toString();
    }

    /** Redis's rule: printable ASCII without spaces. */
    static boolean validName(String name) {
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < '!' || c > '~') return false;
        }
        return true;
    }

    static RedisMessage invalidName() {
        return Replies.error("ERR Client names cannot contain spaces, newlines or special characters.");
    }
}
