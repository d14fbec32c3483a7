package io.cairn.router;

import io.cairn.core.GroupIds;
import io.cairn.core.kv.OpCodec;
import io.cairn.core.kv.OpResult;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.wire.KeyPage;
import io.cairn.core.wire.KeyQuery;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The router's map-reduce connection to one replicaset: storage refs, FLUSH entries and key
 * listings. It has its own Ratis client because Ratis orders one client's async requests, and a
 * multi-megabyte key page or a FLUSH must not hold up the group-committed reads and writes.
 */
final class MapReduceClient implements AutoCloseable {
    private static final long REQUEST_TIMEOUT_MS = 3_000;

    private final String replicasetId;
    private final RaftClient raft;

    MapReduceClient(ReplicasetSpec spec, RouterConfig config) {
        this.replicasetId = spec.id();
        var peers = spec.nodes().stream()
                .map(n -> RaftPeer.newBuilder().setId(n.id()).setAddress(n.raftAddress()).build()).toList();
        RaftGroup group = RaftGroup.valueOf(RaftGroupId.valueOf(GroupIds.replicaset(spec.id())), peers);
        RaftProperties p = new RaftProperties();
        RaftClientConfigKeys.Rpc.setRequestTimeout(p, TimeDuration.valueOf(REQUEST_TIMEOUT_MS, TimeUnit.MILLISECONDS));
        GrpcConfigKeys.setMessageSizeMax(p, SizeInBytes.valueOf(Math.max(64L << 20, 4L * KeyQuery.MAX_BYTES_PER_PAGE)));
        long attempts = Math.max(10, config.requestTimeout().toMillis() / 100);
        this.raft = RaftClient.newBuilder().setClientId(ClientId.randomId()).setRaftGroup(group).setProperties(p)
                .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep((int) attempts,
                        TimeDuration.valueOf(100, TimeUnit.MILLISECONDS)))
                .build();
    }

    String id() {
        return replicasetId;
    }

    /** Appends a REF, UNREF or FLUSH entry; its single result. */
    CompletableFuture<OpResult> command(byte[] entry) {
        return raft.async().send(Message.valueOf(ByteString.copyFrom(entry)))
                .thenApply(reply -> OpCodec.decodeResults(content(reply)).get(0));
    }

    /** A key query answered by the leader (linearizable). */
    CompletableFuture<KeyPage> keys(KeyQuery query) {
        return raft.async().sendReadOnly(Message.valueOf(ByteString.copyFrom(query.encode())))
                .thenApply(reply -> KeyPage.decode(content(reply)));
    }

    private ByteBuffer content(RaftClientReply reply) {
        if (!reply.isSuccess()) {
            Exception e = reply.getException();
            throw new ReplicasetClient.ReplicasetUnavailable(replicasetId + ": " + (e == null ? "request failed" : e.getMessage()));
        }
        return reply.getMessage().getContent().asReadOnlyByteBuffer();
    }

    @Override
    public void close() throws IOException {
        raft.close();
    }
}
