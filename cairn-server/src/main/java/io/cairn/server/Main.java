package io.cairn.server;

import io.cairn.server.cli.CairnCommand;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The entry point of the {@code cairn} command (the {@code cairn} script, the dist's jar, the tests' child
 * processes): one artifact for every role. The commands themselves are in {@code io.cairn.server.cli}
 * ({@link CairnCommand}); the processes they start in {@code io.cairn.server.process}.
 */
public final class Main {
    /** Held: java.util.logging keeps loggers weakly, and a collected one forgets its level. */
    private static final Logger GRPC_LOG = Logger.getLogger("org.apache.ratis.thirdparty");

    private Main() {}

    public static void main(String[] args) {
        // gRPC inside Ratis logs through java.util.logging ("Epoll available ..." at INFO); keep it to warnings.
        GRPC_LOG.setLevel(Level.WARNING);
        System.exit(CairnCommand.commandLine().execute(args));
    }
}
