package io.cairn.server;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.util.concurrent.TimeUnit;

/**
 * The event loops a process shares between its sockets: a router's RESP connections and its
 * data-plane connections, and in a local cluster the storage nodes' data-plane listeners too.
 * On one set of loops a GET and its reply cross no thread: the RESP loop that decodes it writes
 * the data-plane request, the leader's listener (same JVM) serves it under its lease on the
 * loop that reads it, and the reply comes back to the loop that answers the client. Each hand-off
 * between threads cost a wake-up, most of a small read's CPU (docs/benchmarks.md, stop 14).
 */
final class IoLoops {
    /** Loops of a router process and of {@code cairn up}: the RESP default. */
    static final int DEFAULT_THREADS = io.cairn.router.resp.RespConfig.DEFAULT_EVENT_LOOP_THREADS;

    private IoLoops() {}

    static EventLoopGroup create(int threads) {
        return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory("cairn-io", true), NioIoHandler.newFactory());
    }

    /** After every socket on them is closed. */
    static void shutdown(EventLoopGroup loops) {
        loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
}
