package io.cairn.replication.microraft;

import io.cairn.replication.Replica;
import io.cairn.replication.ReplicaConfig;
import io.cairn.replication.ReplicaStateMachine;
import io.netty.channel.EventLoopGroup;

import java.io.IOException;
import java.nio.file.Path;

/** Starts members of replicated groups on MicroRaft: the one way into this package. */
public final class MicroRaftReplicas {
    private MicroRaftReplicas() {
    }

    /**
     * Starts (or, when {@code config.dataDir()} holds one, restarts) a member: binds its address,
     * restores its log and starts its Raft node; returns once it runs.
     *
     * @param ioLoops NIO event loops (a {@code MultiThreadIoEventLoopGroup} with {@code NioIoHandler}) to share
     *                for its sockets, left running on close; or null for a loop of its own
     */
    public static Replica start(ReplicaConfig config, ReplicaStateMachine stateMachine, EventLoopGroup ioLoops) throws IOException {
        return MicroRaftReplica.start(config, stateMachine, ioLoops);
    }

    /** The highest log or snapshot index the member folder {@code dataDir} holds (0 for none), read without starting it. */
    public static long logEnd(Path dataDir) throws IOException {
        return FileRaftStore.logEnd(dataDir);
    }
}
