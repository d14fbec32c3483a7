package io.cairn.raftbench.ratis;

import io.cairn.raftbench.Member;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientAsynchronousProtocol;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/** A Ratis member; proposals go to the leader's division on the caller's thread, as Cairn's data plane submits writes. */
final class RatisMember implements Member {
    private final RaftServer server;
    private final RaftGroupId group;
    private final RaftPeerId self;
    private final ClientId client = ClientId.randomId();
    private final AtomicLong callIds = new AtomicLong();

    RatisMember(RaftServer server, RaftGroupId group, RaftPeerId self) {
        this.server = server;
        this.group = group;
        this.self = self;
    }

    private RaftServer.Division division() throws IOException {
        return server.getDivision(group);
    }

    @Override
    public boolean isLeader() {
        try {
            return division().getInfo().isLeaderReady();
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public CompletableFuture<Void> propose(byte[] entry) {
        try {
            RaftServer.Division division = division();
            RaftClientRequest request = RaftClientRequest.newBuilder().setClientId(client).setServerId(self).setGroupId(group)
                    .setCallId(callIds.incrementAndGet()).setMessage(Message.valueOf(UnsafeByteOperations.unsafeWrap(entry)))
                    .setType(RaftClientRequest.writeRequestType()).build();
            return ((RaftClientAsynchronousProtocol) division).submitClientRequestAsync(request).thenApply(reply -> {
                if (!reply.isSuccess()) throw new IllegalStateException("not committed: " + reply.getException());
                return null;
            });
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
