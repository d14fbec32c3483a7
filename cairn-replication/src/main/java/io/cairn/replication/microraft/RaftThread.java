package io.cairn.replication.microraft;

import io.microraft.executor.RaftNodeExecutor;
import io.microraft.lifecycle.RaftNodeLifecycleAware;

import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** The one thread a member's Raft node runs on (MicroRaft's model), named after the group and member. */
final class RaftThread implements RaftNodeExecutor, RaftNodeLifecycleAware {
    private final ScheduledThreadPoolExecutor executor;

    RaftThread(String groupId, String selfId) {
        executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "cairn-raft-" + groupId + "-" + selfId);
            t.setDaemon(true);
            return t;
        });
        // timers (heartbeats, elections, reports) die with the node instead of holding its thread open
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        executor.setRemoveOnCancelPolicy(true);
    }

    @Override
    public void execute(Runnable task) {
        executor.execute(task);
    }

    @Override
    public void submit(Runnable task) {
        executor.execute(task);
    }

    @Override
    public void schedule(Runnable task, long delay, TimeUnit timeUnit) {
        executor.schedule(task, delay, timeUnit);
    }

    @Override
    public void onRaftNodeTerminate() {
        executor.shutdown();
    }

    /** After the node terminated: waits for the thread to finish what it runs. */
    boolean stop(long timeout, TimeUnit unit) throws InterruptedException {
        executor.shutdown();
        if (executor.awaitTermination(timeout, unit)) return true;
        executor.shutdownNow();
        return false;
    }
}
