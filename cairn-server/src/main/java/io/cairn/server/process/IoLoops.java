package io.cairn.server.process;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.util.concurrent.TimeUnit;

/**
 * The event loops a process shares between its sockets: a router's RESP connections and its
 * data-plane connections, and in a local cluster the storage nodes' data-plane listeners too.
 * On a single loop a GET and its reply never change threads: the loop decodes it, hands the
 * data-plane request to the leader's listener (same JVM, in process:
 * {@link io.cairn.client.InProcessDataPlane}), serves it under the lease and answers the
 * client. Each hand-off between threads cost a wake-up, most of a small read's CPU
 * (docs/benchmarks.md, stop 14); the loopback socket in between cost most of the rest (stop 16).
 */
final class IoLoops {
    private IoLoops() {}

    /**
     * @param threads a router process: the RESP default (2). A whole local cluster: 1, so that
     *                a GET never changes threads. With 2 loops Netty places each connection on
     *                either, and a GET at pipeline 1 cost 12.6 µs of CPU in one run and 21.6 in
     *                the next (17-20 µs with every data-plane socket on the first loop); with
     *                one loop, 12.3-17.0 µs, at the cost of pipelined GETs 15-25 % slower
     *                (docs/benchmarks.md, stop 14).
     */
    static EventLoopGroup create(int threads) {
        return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory("cairn-io", true), NioIoHandler.newFactory());
    }

    /** After every socket on them is closed. */
    static void shutdown(EventLoopGroup loops) {
        loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
}
