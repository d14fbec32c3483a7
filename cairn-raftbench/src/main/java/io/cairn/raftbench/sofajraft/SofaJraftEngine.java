package io.cairn.raftbench.sofajraft;

import com.alipay.remoting.rpc.RpcServer;
import com.alipay.sofa.jraft.JRaftUtils;
import com.alipay.sofa.jraft.Node;
import com.alipay.sofa.jraft.RaftGroupService;
import com.alipay.sofa.jraft.conf.Configuration;
import com.alipay.sofa.jraft.entity.PeerId;
import com.alipay.sofa.jraft.option.NodeOptions;
import com.alipay.sofa.jraft.option.RaftOptions;
import com.alipay.sofa.jraft.rpc.RaftRpcServerFactory;
import com.alipay.sofa.jraft.rpc.impl.BoltRpcServer;
import com.alipay.sofa.jraft.util.Utils;
import com.alipay.sofa.jraft.util.concurrent.DefaultFixedThreadsExecutorGroupFactory;
import com.alipay.sofa.jraft.util.concurrent.FixedThreadsExecutorGroup;
import io.cairn.raftbench.Engine;
import io.cairn.raftbench.Member;
import io.cairn.raftbench.MemberSpec;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.util.concurrent.ExecutorService;

/**
 * SOFAJRaft 1.4.1 on its default bolt transport and its default log storage (RocksDB, the module's
 * rocksdbjni). Each member is one {@link RaftGroupService} of group {@value #GROUP} with the
 * harness's {@link io.cairn.raftbench.RocksApplier} as its state machine.
 *
 * <p>Options set, everything else at jraft's defaults:
 * <ul>
 *   <li>{@code NodeOptions.electionTimeoutMs = 1000} (also jraft's default; the same as the other engines);</li>
 *   <li>no {@code snapshotUri}: snapshots are off, as for every engine in the comparison (steady-state
 *       writes); jraft then keeps the whole log;</li>
 *   <li>{@code RaftOptions.sync = true} (jraft's default, set explicitly and checked): the log is forced
 *       to disk before an entry counts toward a majority, on the leader and on followers;</li>
 *   <li>the term and vote are forced to disk too: jraft's {@code RaftOptions.isSyncMeta()} is
 *       {@code sync || syncMeta}, so {@code sync = true} covers it (checked at start);</li>
 *   <li>the RPC server is built here rather than by {@code RaftGroupService}'s convenience constructor,
 *       only so that it binds {@code spec.self()} (jraft's factory binds the wildcard address) and so that
 *       its request executors (jraft's own {@code JRaftUtils.createExecutor}, at jraft's default sizes
 *       {@code raftRpcThreadPoolSize} and {@code cliRpcThreadPoolSize}) can be stopped on close;</li>
 *   <li>{@code NodeOptions.appendEntriesExecutors}: the group jraft would otherwise take from its JVM-wide
 *       {@code Utils.getDefaultAppendEntriesExecutor()}, built the same way (same size, queue and thread
 *       name) but one per member, so that close can stop its threads.</li>
 * </ul>
 * Timers are per node ({@code sharedTimerPool} and the shared election/vote/step-down timers off),
 * disruptor sizes, pipelining, batching and apply mode are jraft's defaults.
 */
public final class SofaJraftEngine implements Engine {
    static final String GROUP = "cairn-raftbench";
    static final int ELECTION_TIMEOUT_MS = 1000;

    static {
        // bolt logs through sofa-common-tools, whose logback adapter (1.4.0) fails on logback 1.5 with a
        // NoSuchMethodError printed to standard error, then falls back to the slf4j logger
        // com.alipay.sofa.common.log (so to logback.xml). Skipping the adapter lands in the same fallback
        // without the stack trace; sofa-common-tools' own console notices (that the adapter is skipped)
        // are kept to errors. Both are set only if unset, before any bolt class loads.
        if (System.getProperty("logback.middleware.log.disable") == null) {
            System.setProperty("logback.middleware.log.disable", "true");
        }
        if (System.getProperty("sofa.middleware.log.internal.level") == null) {
            System.setProperty("sofa.middleware.log.internal.level", "ERROR");
        }
    }

    @Override
    public String name() {
        return "sofajraft";
    }

    @Override
    public Member start(MemberSpec spec) throws Exception {
        Files.createDirectories(spec.dir());
        Configuration conf = new Configuration();
        for (InetSocketAddress peer : spec.peers()) conf.addPeer(peerId(peer));
        PeerId self = peerId(spec.self());

        RaftOptions raftOptions = new RaftOptions();
        raftOptions.setSync(true);
        NodeOptions options = new NodeOptions();
        options.setElectionTimeoutMs(ELECTION_TIMEOUT_MS);
        options.setInitialConf(conf);
        options.setFsm(new ApplierStateMachine(spec.applier()));
        options.setLogUri(spec.dir().resolve("log").toString());
        options.setRaftMetaUri(spec.dir().resolve("meta").toString());
        options.setRaftOptions(raftOptions);
        FixedThreadsExecutorGroup appendEntriesExecutors = DefaultFixedThreadsExecutorGroupFactory.INSTANCE.newExecutorGroup(
                Utils.APPEND_ENTRIES_THREADS_SEND, "Append-Entries-Thread-Send-" + spec.id(), Utils.MAX_APPEND_ENTRIES_TASKS_PER_THREAD, true);
        options.setAppendEntriesExecutors(appendEntriesExecutors);
        if (!options.getRaftOptions().isSync() || !options.getRaftOptions().isSyncMeta()) {
            throw new IllegalStateException("jraft log or meta sync is off");
        }

        // jraft's BoltRaftRpcFactory binds the wildcard address; bolt's RpcServer(ip, port, manageConnection)
        // binds the given one. The processors are jraft's own, registered as its factory would.
        ExecutorService raftExecutor = (ExecutorService) JRaftUtils.createExecutor("RAFT-RPC-executor-" + spec.id() + "-",
                options.getRaftRpcThreadPoolSize());
        ExecutorService cliExecutor = (ExecutorService) JRaftUtils.createExecutor("CLI-RPC-executor-" + spec.id() + "-",
                options.getCliRpcThreadPoolSize());
        BoltRpcServer rpcServer = new BoltRpcServer(
                new RpcServer(spec.self().getHostString(), spec.self().getPort(), true));
        RaftRpcServerFactory.addRaftRequestProcessors(rpcServer, raftExecutor, cliExecutor);

        RaftGroupService service = new RaftGroupService(GROUP, self, options, rpcServer);
        Node node;
        try {
            node = service.start();
            if (node == null) throw new IllegalStateException("jraft node " + self + " did not start");
            if (!rpcServer.isStarted()) throw new IllegalStateException("jraft RPC server did not bind " + spec.self());
        } catch (RuntimeException e) {
            SofaJraftMember.stop(service, null, raftExecutor, cliExecutor, appendEntriesExecutors);
            throw e;
        }
        return new SofaJraftMember(service, node, raftExecutor, cliExecutor, appendEntriesExecutors);
    }

    private static PeerId peerId(InetSocketAddress address) {
        return new PeerId(address.getHostString(), address.getPort());
    }
}
