package io.cairn.raftbench.jgroupsraft;

import io.cairn.raftbench.Engine;
import io.cairn.raftbench.Member;
import io.cairn.raftbench.MemberSpec;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * jgroups-raft 1.0.14 (on JGroups 5.3.12): the RAFT and ELECTION protocols on top of a JGroups TCP stack built
 * here from an XML string, its file log forced on every append ({@link SyncedVoteFileLog}), and the harness's
 * RocksDB applier as state machine ({@link ApplierStateMachine}). Each member is one {@code JChannel} named after
 * its Raft id in cluster {@value #CLUSTER}.
 *
 * <p>The stack, bottom to top (everything not named is at JGroups' defaults):
 * <ul>
 *   <li>{@code TCP}: {@code bind_addr=127.0.0.1}, {@code bind_port} = the member's port, {@code port_range=0} (that port
 *       or fail), diagnostics off ({@code diag.enabled=false}); its only listening socket is that port;</li>
 *   <li>{@code TCPPING}: the three members' addresses ({@code 127.0.0.1[port]}), {@code port_range=0}: no multicast or UDP
 *       discovery;</li>
 *   <li>{@code MERGE3} every 2 to 5 s (JGroups' default 10 to 30 s): three processes started at once may first form
 *       separate views, and RAFT elects only in a view holding a majority;</li>
 *   <li>{@code FD_ALL3} (heartbeats every 1 s, a member suspected after 5 s without traffic, as MicroRaft's 5 s
 *       heartbeat timeout) and {@code VERIFY_SUSPECT2}; no {@code FD_SOCK}/{@code FD_SOCK2}, which would each
 *       listen on one more port;</li>
 *   <li>{@code pbcast.NAKACK2} (no multicast retransmission; {@code log_discard_msgs=false}: a member that has left
 *       would otherwise be logged for each message still in flight from it), {@code UNICAST3}, {@code pbcast.STABLE},
 *       {@code raft.NO_DUPES}, {@code pbcast.GMS} (not printing its address), {@code UFC}/{@code MFC} at 10 MB credits (as
 *       JGroups' own tcp.xml), {@code FRAG4} at 60 KB;</li>
 *   <li>{@code raft.ELECTION} at its defaults;</li>
 *   <li>{@code raft.RAFT}: {@code raft_id} = the member's id, {@code members=m0,m1,m2}, {@code log_dir} = the member's
 *       folder, {@code log_class} = {@link SyncedVoteFileLog} (FileBasedLog; the default is LevelDBLog, whose native
 *       library this module excludes), {@code log_use_fsync=true} (default false: without it no append is forced), and
 *       {@code max_log_size} at its largest, 2 GiB (default 1 MB): the log is snapshotted and truncated only past that,
 *       over two minutes of the heaviest cell measured (~14 MB of log per second), so not in a benchmark of normal
 *       length. No {@code REDIRECT} or {@code CLIENT}: the harness proposes on the leader,
 *       and CLIENT would listen on another port.</li>
 * </ul>
 * Durability: the leader appends a batch of proposals to its log and forces it ({@code FileChannel.force}) on RAFT's
 * single queue thread before that thread handles any follower's answer, and a follower appends and forces before it
 * answers; an entry commits with a majority of answers, so only once a majority forced it. The start checks that
 * the log in use forces ({@link JGroupsRaftMember}). One gap this harness leaves as it is: FileBasedLog 1.0.14 prints and
 * swallows an {@code IOException} from a write or force, so a member whose disk fails goes on acknowledging.
 */
public final class JGroupsRaftEngine implements Engine {
    static final String CLUSTER = "cairn-raftbench";
    /** RAFT's {@code max_log_size} is an int: its largest value. */
    static final int MAX_LOG_SIZE = Integer.MAX_VALUE;

    @Override
    public String name() {
        return "jgroups-raft";
    }

    @Override
    public Member start(MemberSpec spec) throws Exception {
        Files.createDirectories(spec.dir());
        return new JGroupsRaftMember(spec, config(spec));
    }

    /** The JGroups configuration of one member, as the XML JGroups reads (unknown attributes fail the start). */
    static String config(MemberSpec spec) {
        InetSocketAddress self = spec.self();
        String initialHosts = spec.peers().stream().map(p -> p.getHostString() + "[" + p.getPort() + "]").collect(Collectors.joining(","));
        List<String> members = IntStream.range(0, spec.peers().size()).mapToObj(i -> "m" + i).toList();
        return """
                <config xmlns="urn:org:jgroups">
                  <TCP bind_addr="%s" bind_port="%d" port_range="0" diag.enabled="false"/>
                  <TCPPING initial_hosts="%s" port_range="0"/>
                  <MERGE3 min_interval="2s" max_interval="5s"/>
                  <FD_ALL3 timeout="5s" interval="1s"/>
                  <VERIFY_SUSPECT2 timeout="1s"/>
                  <pbcast.NAKACK2 use_mcast_xmit="false" log_discard_msgs="false"/>
                  <UNICAST3/>
                  <pbcast.STABLE desired_avg_gossip="50s" max_bytes="4M"/>
                  <raft.NO_DUPES/>
                  <pbcast.GMS print_local_addr="false"/>
                  <UFC max_credits="10M" min_threshold="0.4"/>
                  <MFC max_credits="10M" min_threshold="0.4"/>
                  <FRAG4 frag_size="60K"/>
                  <raft.ELECTION/>
                  <raft.RAFT raft_id="%s" members="%s" log_dir="%s" log_class="%s" log_use_fsync="true" max_log_size="%d"/>
                </config>
                """.formatted(self.getHostString(), self.getPort(), initialHosts, spec.id(), String.join(",", members),
                attribute(spec.dir().toAbsolutePath().toString()), SyncedVoteFileLog.class.getName(), MAX_LOG_SIZE);
    }

    private static String attribute(String value) {
        return value.replace("&", "&amp;").replace("\"", "&quot;").replace("<", "&lt;");
    }
}
