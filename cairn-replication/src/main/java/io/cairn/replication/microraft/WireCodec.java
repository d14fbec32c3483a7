package io.cairn.replication.microraft;

import io.microraft.RaftEndpoint;
import io.microraft.model.log.LogEntry;
import io.microraft.model.log.SnapshotChunk;
import io.microraft.model.message.AppendEntriesFailureResponse;
import io.microraft.model.message.AppendEntriesRequest;
import io.microraft.model.message.AppendEntriesSuccessResponse;
import io.microraft.model.message.InstallSnapshotRequest;
import io.microraft.model.message.InstallSnapshotResponse;
import io.microraft.model.message.PreVoteRequest;
import io.microraft.model.message.PreVoteResponse;
import io.microraft.model.message.RaftMessage;
import io.microraft.model.message.TriggerLeaderElectionRequest;
import io.microraft.model.message.VoteRequest;
import io.microraft.model.message.VoteResponse;
import io.netty.buffer.ByteBuf;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static io.cairn.replication.microraft.ModelCodec.MODEL;

/**
 * Every MicroRaft message as one frame body. The group id is not sent: a connection's hello frame
 * names the group once ({@link #writeHello}). An append request is cut to the entries that fit in
 * {@link #APPEND_TARGET_BYTES} (at least one, up to {@code maxFrameBytes}): the follower
 * acknowledges what it got and the leader sends the rest next, as it does when a follower's log is
 * short of room. The cut keeps what a follower that stops reading costs its leader near the
 * transport's high-water mark: the leader repeats its unanswered append every back-off, and one
 * frame may go past the mark ({@link NettyTransport}). A snapshot chunk carries its
 * {@link SnapshotPiece} followed by the piece's bytes, read from and written to disk by
 * {@link SnapshotFiles} as the frame is encoded and decoded.
 */
final class WireCodec {
    static final int HELLO_MAGIC = 0xCA1F_0001;

    private static final byte APPEND_REQUEST = 1;
    private static final byte APPEND_SUCCESS = 2;
    private static final byte APPEND_FAILURE = 3;
    private static final byte INSTALL_SNAPSHOT_REQUEST = 4;
    private static final byte INSTALL_SNAPSHOT_RESPONSE = 5;
    private static final byte PRE_VOTE_REQUEST = 6;
    private static final byte PRE_VOTE_RESPONSE = 7;
    private static final byte TRIGGER_ELECTION = 8;
    private static final byte VOTE_REQUEST = 9;
    private static final byte VOTE_RESPONSE = 10;

    /** Entries past this many bytes wait for the next append request (one entry always goes). */
    static final int APPEND_TARGET_BYTES = 4 << 20;

    private final String groupId;
    private final int maxFrameBytes;
    private final SnapshotFiles snapshots;

    WireCodec(String groupId, int maxFrameBytes, SnapshotFiles snapshots) {
        this.groupId = groupId;
        this.maxFrameBytes = maxFrameBytes;
        this.snapshots = snapshots;
    }

    int maxFrameBytes() {
        return maxFrameBytes;
    }

    void writeHello(String senderId, ByteBuf out) {
        out.writeInt(HELLO_MAGIC);
        ModelCodec.writeString(groupId, out);
        ModelCodec.writeString(senderId, out);
    }

    /** The sender named by a hello frame; fails when the frame is no hello of this group. */
    String readHello(ByteBuf in) {
        if (in.readInt() != HELLO_MAGIC) throw new IllegalArgumentException("not a Cairn replication hello");
        String group = ModelCodec.readString(in);
        if (!group.equals(groupId)) throw new IllegalArgumentException("hello from group " + group + ", this is " + groupId);
        return ModelCodec.readString(in);
    }

    static int sizeHint(RaftMessage m) {
        if (m instanceof AppendEntriesRequest r) {
            int size = 64;
            for (LogEntry e : r.getLogEntries()) size += 16 + ModelCodec.sizeHint(e.getOperation());
            return size;
        }
        if (m instanceof InstallSnapshotRequest r && r.getSnapshotChunk() != null
                && r.getSnapshotChunk().getOperation() instanceof SnapshotPiece p) return 1024 + p.length();
        return 128;
    }

    /** Encodes {@code m} after {@code out}'s writer index; the frame's length prefix is the caller's. */
    void encode(RaftMessage m, ByteBuf out) throws IOException {
        int start = out.writerIndex();
        if (m instanceof AppendEntriesRequest r) {
            header(out, APPEND_REQUEST, m);
            out.writeInt(r.getPreviousLogTerm()).writeLong(r.getPreviousLogIndex()).writeLong(r.getCommitIndex())
                    .writeLong(r.getQuerySequenceNumber()).writeLong(r.getFlowControlSequenceNumber());
            writeEntriesThatFit(r.getLogEntries(), out, start);
        } else if (m instanceof AppendEntriesSuccessResponse r) {
            header(out, APPEND_SUCCESS, m);
            out.writeLong(r.getLastLogIndex()).writeLong(r.getQuerySequenceNumber()).writeLong(r.getFlowControlSequenceNumber());
        } else if (m instanceof AppendEntriesFailureResponse r) {
            header(out, APPEND_FAILURE, m);
            out.writeLong(r.getExpectedNextIndex()).writeLong(r.getQuerySequenceNumber()).writeLong(r.getFlowControlSequenceNumber());
        } else if (m instanceof InstallSnapshotRequest r) {
            header(out, INSTALL_SNAPSHOT_REQUEST, m);
            encodeInstallSnapshot(r, out);
        } else if (m instanceof InstallSnapshotResponse r) {
            header(out, INSTALL_SNAPSHOT_RESPONSE, m);
            out.writeLong(r.getSnapshotIndex()).writeInt(r.getRequestedSnapshotChunkIndex()).writeLong(r.getQuerySequenceNumber())
                    .writeLong(r.getFlowControlSequenceNumber());
        } else if (m instanceof PreVoteRequest r) {
            header(out, PRE_VOTE_REQUEST, m);
            out.writeInt(r.getLastLogTerm()).writeLong(r.getLastLogIndex());
        } else if (m instanceof PreVoteResponse r) {
            header(out, PRE_VOTE_RESPONSE, m);
            out.writeBoolean(r.isGranted());
        } else if (m instanceof TriggerLeaderElectionRequest r) {
            header(out, TRIGGER_ELECTION, m);
            out.writeInt(r.getLastLogTerm()).writeLong(r.getLastLogIndex());
        } else if (m instanceof VoteRequest r) {
            header(out, VOTE_REQUEST, m);
            out.writeInt(r.getLastLogTerm()).writeLong(r.getLastLogIndex()).writeBoolean(r.isSticky());
        } else if (m instanceof VoteResponse r) {
            header(out, VOTE_RESPONSE, m);
            out.writeBoolean(r.isGranted());
        } else {
            throw new IllegalArgumentException("no encoding for Raft message " + m.getClass().getName());
        }
    }

    private void writeEntriesThatFit(List<LogEntry> entries, ByteBuf out, int start) {
        int countAt = out.writerIndex();
        out.writeInt(0);
        int written = 0;
        for (LogEntry e : entries) {
            int before = out.writerIndex();
            ModelCodec.writeLogEntry(e, out);
            if (written > 0 && out.writerIndex() - start > Math.min(maxFrameBytes, APPEND_TARGET_BYTES)) {
                out.writerIndex(before); // the rest goes in the leader's next request
                break;
            }
            written++;
        }
        out.setInt(countAt, written);
    }

    private void encodeInstallSnapshot(InstallSnapshotRequest r, ByteBuf out) throws IOException {
        out.writeBoolean(r.isSenderLeader()).writeInt(r.getSnapshotTerm()).writeLong(r.getSnapshotIndex())
                .writeInt(r.getTotalSnapshotChunkCount()).writeLong(r.getQuerySequenceNumber()).writeLong(r.getFlowControlSequenceNumber());
        ModelCodec.writeEndpoints(r.getSnapshottedMembers(), out);
        ModelCodec.writeMembersView(r.getGroupMembersView(), out);
        SnapshotChunk chunk = r.getSnapshotChunk();
        out.writeBoolean(chunk != null);
        if (chunk == null) return;
        if (!(chunk.getOperation() instanceof SnapshotPiece piece)) {
            throw new IllegalArgumentException("snapshot chunk without a piece: " + chunk.getOperation());
        }
        ModelCodec.writeSnapshotChunk(chunk, out);
        snapshots.readPiece(piece, out);
    }

    private void header(ByteBuf out, byte type, RaftMessage m) {
        out.writeByte(type);
        ModelCodec.writeEndpointId(m.getSender(), out);
        out.writeInt(m.getTerm());
    }

    /** The message in {@code in}, or null when it was a snapshot chunk that could not be staged and is dropped. */
    RaftMessage decode(ByteBuf in) throws IOException {
        byte type = in.readByte();
        String senderId = ModelCodec.readEndpointId(in);
        if (senderId == null) throw new IllegalArgumentException("message without a sender");
        RaftEndpoint sender = new Endpoint(senderId, null);
        int term = in.readInt();
        return switch (type) {
            case APPEND_REQUEST -> {
                var b = MODEL.createAppendEntriesRequestBuilder().setGroupId(groupId).setSender(sender).setTerm(term)
                        .setPreviousLogTerm(in.readInt()).setPreviousLogIndex(in.readLong()).setCommitIndex(in.readLong())
                        .setQuerySequenceNumber(in.readLong()).setFlowControlSequenceNumber(in.readLong());
                int n = ModelCodec.checkedLength(in.readInt(), in);
                List<LogEntry> entries = new ArrayList<>(n);
                for (int i = 0; i < n; i++) entries.add(ModelCodec.readLogEntry(in));
                yield b.setLogEntries(entries).build();
            }
            case APPEND_SUCCESS -> MODEL.createAppendEntriesSuccessResponseBuilder().setGroupId(groupId).setSender(sender).setTerm(term)
                    .setLastLogIndex(in.readLong()).setQuerySequenceNumber(in.readLong()).setFlowControlSequenceNumber(in.readLong()).build();
            case APPEND_FAILURE -> MODEL.createAppendEntriesFailureResponseBuilder().setGroupId(groupId).setSender(sender).setTerm(term)
                    .setExpectedNextIndex(in.readLong()).setQuerySequenceNumber(in.readLong()).setFlowControlSequenceNumber(in.readLong()).build();
            case INSTALL_SNAPSHOT_REQUEST -> decodeInstallSnapshot(in, sender, term);
            case INSTALL_SNAPSHOT_RESPONSE -> MODEL.createInstallSnapshotResponseBuilder().setGroupId(groupId).setSender(sender).setTerm(term)
                    .setSnapshotIndex(in.readLong()).setRequestedSnapshotChunkIndex(in.readInt()).setQuerySequenceNumber(in.readLong())
                    .setFlowControlSequenceNumber(in.readLong()).build();
            case PRE_VOTE_REQUEST -> MODEL.createPreVoteRequestBuilder().setGroupId(groupId).setSender(sender).setTerm(term)
                    .setLastLogTerm(in.readInt()).setLastLogIndex(in.readLong()).build();
            case PRE_VOTE_RESPONSE -> MODEL.createPreVoteResponseBuilder().setGroupId(groupId).setSender(sender).setTerm(term)
                    .setGranted(in.readBoolean()).build();
            case TRIGGER_ELECTION -> MODEL.createTriggerLeaderElectionRequestBuilder().setGroupId(groupId).setSender(sender).setTerm(term)
                    .setLastLogTerm(in.readInt()).setLastLogIndex(in.readLong()).build();
            case VOTE_REQUEST -> MODEL.createVoteRequestBuilder().setGroupId(groupId).setSender(sender).setTerm(term)
                    .setLastLogTerm(in.readInt()).setLastLogIndex(in.readLong()).setSticky(in.readBoolean()).build();
            case VOTE_RESPONSE -> MODEL.createVoteResponseBuilder().setGroupId(groupId).setSender(sender).setTerm(term)
                    .setGranted(in.readBoolean()).build();
            default -> throw new IllegalArgumentException("unknown Raft message type " + type);
        };
    }

    private RaftMessage decodeInstallSnapshot(ByteBuf in, RaftEndpoint sender, int term) throws IOException {
        var b = MODEL.createInstallSnapshotRequestBuilder().setGroupId(groupId).setSender(sender).setTerm(term)
                .setSenderLeader(in.readBoolean()).setSnapshotTerm(in.readInt()).setSnapshotIndex(in.readLong())
                .setTotalSnapshotChunkCount(in.readInt()).setQuerySequenceNumber(in.readLong()).setFlowControlSequenceNumber(in.readLong())
                .setSnapshottedMembers(ModelCodec.readEndpoints(in)).setGroupMembersView(ModelCodec.readMembersView(in));
        SnapshotChunk chunk = null;
        if (in.readBoolean()) {
            chunk = ModelCodec.readSnapshotChunk(in);
            if (!(chunk.getOperation() instanceof SnapshotPiece piece)) throw new IllegalArgumentException("snapshot chunk without a piece");
            if (!snapshots.receivePiece(piece, in)) return null;
        }
        return b.setSnapshotChunk(chunk).build();
    }
}
