package io.cairn.raftbench.microraft;

import io.cairn.raftbench.Engine;
import io.cairn.raftbench.Member;
import io.cairn.raftbench.MemberSpec;

/**
 * MicroRaft (io.microraft 0.7): its single-threaded Raft core with this package's Netty transport
 * ({@link NettyTransport}), append-only log file forced on every flush ({@link FileRaftStore}) and the
 * harness's RocksDB applier as state machine ({@link ApplierStateMachine}).
 */
public final class MicroRaftEngine implements Engine {
    @Override
    public String name() {
        return "microraft";
    }

    @Override
    public Member start(MemberSpec spec) throws Exception {
        return new MicroRaftMember(spec);
    }
}
