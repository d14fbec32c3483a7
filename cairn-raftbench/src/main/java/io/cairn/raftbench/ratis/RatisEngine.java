package io.cairn.raftbench.ratis;

import io.cairn.raftbench.Engine;
import io.cairn.raftbench.Member;
import io.cairn.raftbench.MemberSpec;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.netty.NettyConfigKeys;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

import java.nio.file.Files;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * Apache Ratis 3.3, in three settings:
 * <ul>
 *   <li>{@code ratis}: as Cairn's storage node configures it today (gRPC, the properties of
 *       {@code StorageNode.properties} that matter for writes), with proposals submitted to the
 *       leader's division in process, as Cairn's data plane does;</li>
 *   <li>{@code ratis-tuned}: the levers Ratis offers for a write's CPU, each kept only where it keeps
 *       the durability: no appender wait, a retry cache sized to need, cached thread pools, entries
 *       composed per append;</li>
 *   <li>{@code ratis-netty}: the tuned settings on Ratis's Netty transport instead of gRPC.</li>
 * </ul>
 * Snapshots are off for every engine in the comparison (steady-state writes); the log is forced to
 * disk before an entry counts toward a majority (Ratis's default, {@code unsafe-flush} off).
 */
public class RatisEngine implements Engine {
    /** The three settings; each engine name is one. */
    enum Setting { CAIRN, TUNED, NETTY }

    private static final RaftGroupId GROUP = RaftGroupId.valueOf(UUID.fromString("5a6b6c1e-0000-4000-8000-00000000beef"));

    private final Setting setting;

    public RatisEngine() {
        this(Setting.CAIRN);
    }

    RatisEngine(Setting setting) {
        this.setting = setting;
    }

    /** {@code ratis-tuned}. */
    public static final class Tuned extends RatisEngine {
        public Tuned() {
            super(Setting.TUNED);
        }
    }

    /** {@code ratis-netty}. */
    public static final class Netty extends RatisEngine {
        public Netty() {
            super(Setting.NETTY);
        }
    }

    @Override
    public String name() {
        return switch (setting) {
            case CAIRN -> "ratis";
            case TUNED -> "ratis-tuned";
            case NETTY -> "ratis-netty";
        };
    }

    @Override
    public Member start(MemberSpec spec) throws Exception {
        List<RaftPeer> peers = IntStream.range(0, spec.peers().size())
                .mapToObj(i -> RaftPeer.newBuilder().setId("m" + i)
                        .setAddress(spec.peers().get(i).getHostString() + ":" + spec.peers().get(i).getPort()).build())
                .toList();
        boolean fresh = !Files.isDirectory(spec.dir().resolve(GROUP.getUuid().toString()));
        Files.createDirectories(spec.dir());
        RatisStateMachine stateMachine = new RatisStateMachine(spec.applier());
        RaftServer server = RaftServer.newBuilder()
                .setServerId(peers.get(spec.index()).getId())
                .setGroup(RaftGroup.valueOf(GROUP, peers))
                .setStateMachine(stateMachine)
                .setProperties(properties(spec))
                .setOption(fresh ? RaftStorage.StartupOption.FORMAT : RaftStorage.StartupOption.RECOVER)
                .build();
        server.start();
        return new RatisMember(server, GROUP, peers.get(spec.index()).getId());
    }

    private RaftProperties properties(MemberSpec spec) {
        RaftProperties p = new RaftProperties();
        RaftServerConfigKeys.setStorageDir(p, List.of(spec.dir().toFile()));
        if (setting == Setting.NETTY) {
            RaftConfigKeys.Rpc.setType(p, SupportedRpcType.NETTY);
            NettyConfigKeys.Server.setHost(p, spec.self().getHostString());
            NettyConfigKeys.Server.setPort(p, spec.self().getPort());
        } else {
            GrpcConfigKeys.Server.setHost(p, spec.self().getHostString());
            GrpcConfigKeys.Server.setPort(p, spec.self().getPort());
        }
        // Cairn's settings (StorageNode.properties), less its snapshots.
        RaftServerConfigKeys.Rpc.setTimeoutMin(p, TimeDuration.valueOf(1000, TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Rpc.setTimeoutMax(p, TimeDuration.valueOf(2000, TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, false);
        RaftServerConfigKeys.Snapshot.setTriggerWhenStopEnabled(p, false);
        RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf(32L << 20));
        SizeInBytes appenderBuffer = SizeInBytes.valueOf(33L << 20);
        RaftServerConfigKeys.Log.Appender.setBufferByteLimit(p, appenderBuffer);
        RaftServerConfigKeys.Log.setWriteBufferSize(p, SizeInBytes.valueOf(appenderBuffer.getSize() + (1 << 20)));
        GrpcConfigKeys.setMessageSizeMax(p, SizeInBytes.valueOf(appenderBuffer.getSize() + (1 << 20)));
        RaftServerConfigKeys.Write.setByteLimit(p, SizeInBytes.valueOf("256MB"));
        if (setting != Setting.CAIRN) {
            // An appender sends as soon as it has entries instead of waiting up to 10 ms for more.
            RaftServerConfigKeys.Log.Appender.setWaitTimeMin(p, TimeDuration.ZERO);
            // Replies are kept for retries for 10 s instead of 60 s: the cache's churn is per entry.
            RaftServerConfigKeys.RetryCache.setExpiryTime(p, TimeDuration.valueOf(10, TimeUnit.SECONDS));
            RaftServerConfigKeys.ThreadPool.setServerCached(p, true);
            RaftServerConfigKeys.ThreadPool.setClientCached(p, true);
            RaftServerConfigKeys.Log.setAppendEntriesComposeEnabled(p, true);
            RaftServerConfigKeys.Log.setReadLockEnabled(p, false);
        }
        return p;
    }
}
