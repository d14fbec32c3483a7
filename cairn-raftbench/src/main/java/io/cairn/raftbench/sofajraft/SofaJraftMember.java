package io.cairn.raftbench.sofajraft;

import com.alipay.sofa.jraft.Node;
import com.alipay.sofa.jraft.NodeManager;
import com.alipay.sofa.jraft.RaftGroupService;
import com.alipay.sofa.jraft.entity.Task;
import com.alipay.sofa.jraft.rpc.RpcServer;
import com.alipay.sofa.jraft.util.concurrent.FixedThreadsExecutorGroup;
import io.cairn.raftbench.Member;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/** One jraft node and its RPC server; proposals are published to the node's apply queue from the caller's thread. */
final class SofaJraftMember implements Member {
    private final RaftGroupService service;
    private final Node node;
    private final ExecutorService raftExecutor;
    private final ExecutorService cliExecutor;
    private final FixedThreadsExecutorGroup appendEntriesExecutors;
    private boolean closed;

    SofaJraftMember(RaftGroupService service, Node node, ExecutorService raftExecutor, ExecutorService cliExecutor,
                    FixedThreadsExecutorGroup appendEntriesExecutors) {
        this.service = service;
        this.node = node;
        this.raftExecutor = raftExecutor;
        this.cliExecutor = cliExecutor;
        this.appendEntriesExecutors = appendEntriesExecutors;
    }

    @Override
    public boolean isLeader() {
        return node.isLeader();
    }

    @Override
    public CompletableFuture<Void> propose(byte[] entry) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (!node.isLeader(false)) {
            done.completeExceptionally(new IllegalStateException("sofajraft: " + node.getNodeId() + " is not the leader"));
            return done;
        }
        try {
            // The closure runs on the state machine's thread right after the entry is applied there (or,
            // with an error, on a jraft executor when the entry cannot be committed).
            node.apply(new Task(ByteBuffer.wrap(entry), status -> {
                if (status.isOk()) {
                    done.complete(null);
                } else {
                    done.completeExceptionally(new IllegalStateException("sofajraft: " + status));
                }
            }));
        } catch (RuntimeException e) {
            // shutting down (the closure has been failed as well) or overloaded
            done.completeExceptionally(e);
        }
        return done;
    }

    @Override
    public synchronized void close() throws InterruptedException {
        if (closed) return;
        closed = true;
        stop(service, node, raftExecutor, cliExecutor, appendEntriesExecutors);
    }

    /**
     * Stops the RPC server and the node, waits for the node's threads (disruptors, timers, log storage)
     * to finish, then stops the executors made for it. {@code node} may be null when start failed part way.
     */
    static void stop(RaftGroupService service, Node node, ExecutorService raftExecutor, ExecutorService cliExecutor,
                     FixedThreadsExecutorGroup appendEntriesExecutors) throws InterruptedException {
        if (node == null) node = service.getRaftNode();
        try {
            if (service.isStarted()) {
                service.shutdown(); // RPC server, then node.shutdown(), then NodeManager's address
            } else {
                // start failed part way: RaftGroupService.shutdown() would do nothing
                RpcServer rpcServer = service.getRpcServer();
                if (rpcServer != null && rpcServer.isStarted()) rpcServer.shutdown();
                if (node != null) node.shutdown();
                NodeManager.getInstance().removeAddress(service.getServerId().getEndpoint());
            }
            if (node != null) node.join();
        } finally {
            appendEntriesExecutors.shutdownGracefully(10, TimeUnit.SECONDS);
            raftExecutor.shutdownNow();
            cliExecutor.shutdownNow();
            raftExecutor.awaitTermination(10, TimeUnit.SECONDS);
            cliExecutor.awaitTermination(10, TimeUnit.SECONDS);
        }
    }
}
