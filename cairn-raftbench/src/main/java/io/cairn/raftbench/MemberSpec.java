package io.cairn.raftbench;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;

/**
 * What a member needs to start.
 *
 * @param index   this member's position in {@code peers} (0, 1 or 2); its id is {@code "m" + index}
 * @param peers   every member's Raft address, the same list on each member; all bind 127.0.0.1
 * @param dir     an empty or earlier-used folder of this member's own, for its log and metadata
 * @param applier the state machine: every committed entry goes through {@link RocksApplier#apply}, in log order
 */
public record MemberSpec(int index, List<InetSocketAddress> peers, Path dir, RocksApplier applier) {
    public String id() {
        return "m" + index;
    }

    public InetSocketAddress self() {
        return peers.get(index);
    }
}
