package io.cairn.coordinator;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.topology.NodeAddress;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.util.TimeDuration;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The coordinator Raft group as servers and clients see it. The group id is derived from a fixed
 * name, so every node and client computes the same id from nothing but the code; the peers are
 * the coordinator addresses (peer id = node id, address = host:raftPort).
 */
final class CoordinatorGroup {
    static final String GROUP_NAME = "cairn-coordinator";
    static final RaftGroupId GROUP_ID =
            RaftGroupId.valueOf(UUID.nameUUIDFromBytes(GROUP_NAME.getBytes(StandardCharsets.UTF_8)));

    private CoordinatorGroup() {}

    static RaftGroup of(List<NodeAddress> coordinators) {
        requireDistinct(coordinators);
        List<RaftPeer> peers = coordinators.stream()
                .map(n -> RaftPeer.newBuilder().setId(n.id()).setAddress(n.raftAddress()).build())
                .toList();
        return RaftGroup.valueOf(GROUP_ID, peers);
    }

    static RaftPeerId peerId(String nodeId) {
        return RaftPeerId.valueOf(nodeId);
    }

    static TimeDuration ratis(Duration d) {
        return TimeDuration.valueOf(d.toMillis(), TimeUnit.MILLISECONDS);
    }

    private static void requireDistinct(List<NodeAddress> coordinators) {
        if (coordinators == null || coordinators.isEmpty()) {
            throw new CairnException(ErrorCode.INVALID_CONFIG, "at least one coordinator node is required");
        }
        Set<String> ids = new HashSet<>();
        for (NodeAddress n : coordinators) {
            if (!ids.add(n.id())) {
                throw new CairnException(ErrorCode.INVALID_CONFIG, "duplicate coordinator id '" + n.id() + "'");
            }
        }
    }
}
