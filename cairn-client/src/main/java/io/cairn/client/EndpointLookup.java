package io.cairn.client;

import io.cairn.core.GroupIds;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.wire.DataPlane;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Finds a member's data-plane endpoint in a topology written before that port was named: a Ratis
 * stale read to the member ({@link DataPlane#ENDPOINT_QUERY}), asked again after every lost
 * connection, so a restarted member on a new port is found.
 */
final class EndpointLookup implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EndpointLookup.class);
    private static final long TIMEOUT_MS = 1_000;

    private final Supplier<RaftClient> factory;
    private RaftClient client;
    private boolean closed;

    EndpointLookup(ReplicasetSpec spec) {
        RaftGroup group = RaftGroup.valueOf(RaftGroupId.valueOf(GroupIds.replicaset(spec.id())), spec.nodes().stream()
                .map(n -> RaftPeer.newBuilder().setId(n.id()).setAddress(n.raftAddress()).build()).toList());
        RaftProperties properties = new RaftProperties();
        RaftClientConfigKeys.Rpc.setRequestTimeout(properties, TimeDuration.valueOf(TIMEOUT_MS, TimeUnit.MILLISECONDS));
        this.factory = () -> RaftClient.newBuilder().setClientId(ClientId.randomId()).setRaftGroup(group)
                .setProperties(properties).setParameters(RatisTls.parameters()).setRetryPolicy(RetryPolicies.noRetry()).build();
        this.client = factory.get();
    }

    /** The member's data-plane endpoint, "host:port", as the member itself says. */
    CompletableFuture<String> endpointOf(String member) {
        Message query = Message.valueOf(ByteString.copyFrom(DataPlane.endpointQuery()));
        RaftClient c;
        synchronized (this) {
            c = client;
        }
        return c.async().sendStaleRead(query, 0, RaftPeerId.valueOf(member))
                .orTimeout(TIMEOUT_MS, TimeUnit.MILLISECONDS)
                .whenComplete((reply, error) -> {
                    if (error != null) replace(c);
                })
                .thenApply(reply -> {
                    if (!reply.isSuccess()) throw new ReplicasetUnavailable("endpoint query to " + member + " failed");
                    String endpoint = reply.getMessage().getContent().toString(StandardCharsets.UTF_8);
                    if (endpoint.lastIndexOf(':') < 0) throw new ReplicasetUnavailable(member + " has no data plane yet");
                    return endpoint;
                });
    }

    /**
     * A Ratis client without retries never resets its connection to a member that went away
     * (resets happen on its retry path), so after a failed look-up the next one uses a new client.
     * The old one is closed outside the monitor: closing fails its look-ups in flight on Ratis's
     * threads, whose callbacks come here and must not wait for a thread that waits for them.
     */
    private void replace(RaftClient failed) {
        synchronized (this) {
            if (client != failed || closed) return;
            client = factory.get();
        }
        closeQuietly(failed);
    }

    @Override
    public void close() {
        RaftClient last;
        synchronized (this) {
            closed = true;
            last = client;
        }
        // Outside the monitor (see replace): held here, a look-up failing during the close deadlocked it.
        closeQuietly(last);
    }

    private static void closeQuietly(RaftClient client) {
        try {
            client.close();
        } catch (Exception e) {
            log.debug("closing an endpoint lookup client failed: {}", e.toString());
        }
    }
}
