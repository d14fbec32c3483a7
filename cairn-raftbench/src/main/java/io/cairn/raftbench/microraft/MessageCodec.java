package io.cairn.raftbench.microraft;

import io.microraft.MembershipChangeMode;
import io.microraft.RaftEndpoint;
import io.microraft.model.RaftModelFactory;
import io.microraft.model.groupop.UpdateRaftGroupMembersOp;
import io.microraft.model.impl.DefaultRaftModelFactory;
import io.microraft.model.log.LogEntry;
import io.microraft.model.log.RaftGroupMembersView;
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

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * A compact binary form of every MicroRaft message, log entry and snapshot chunk, for the wire
 * ({@link NettyTransport}) and the log file ({@link FileRaftStore}). The group id is not sent: there
 * is one group, {@link #GROUP_ID}. Operations are the harness's {@code byte[]} entries, MicroRaft's
 * {@link UpdateRaftGroupMembersOp} and this engine's {@link SnapshotMarker}; any other operation
 * fails loudly.
 */
final class MessageCodec {
    static final String GROUP_ID = "cairn-raftbench";
    static final RaftModelFactory MODEL = new DefaultRaftModelFactory();

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

    private static final byte OP_NULL = 0;
    private static final byte OP_BYTES = 1;
    private static final byte OP_UPDATE_MEMBERS = 2;
    private static final byte OP_SNAPSHOT_MARKER = 3;

    private MessageCodec() {
    }

    /** An upper-bound guess of a message's encoded size, so the buffer need not grow while encoding. */
    static int sizeHint(RaftMessage m) {
        if (m instanceof AppendEntriesRequest r) {
            int size = 64;
            for (LogEntry e : r.getLogEntries()) size += 32 + operationSizeHint(e.getOperation());
            return size;
        }
        if (m instanceof InstallSnapshotRequest r && r.getSnapshotChunk() != null) return 512 + operationSizeHint(r.getSnapshotChunk().getOperation());
        return 128;
    }

    static int operationSizeHint(Object operation) {
        return operation instanceof byte[] b ? b.length + 8 : 256;
    }

    static void encode(RaftMessage m, ByteBuf out) {
        if (m instanceof AppendEntriesRequest r) {
            header(out, APPEND_REQUEST, m);
            out.writeInt(r.getPreviousLogTerm()).writeLong(r.getPreviousLogIndex()).writeLong(r.getCommitIndex())
                    .writeLong(r.getQuerySequenceNumber()).writeLong(r.getFlowControlSequenceNumber());
            List<LogEntry> entries = r.getLogEntries();
            out.writeInt(entries.size());
            for (LogEntry e : entries) writeLogEntry(e, out);
        } else if (m instanceof AppendEntriesSuccessResponse r) {
            header(out, APPEND_SUCCESS, m);
            out.writeLong(r.getLastLogIndex()).writeLong(r.getQuerySequenceNumber()).writeLong(r.getFlowControlSequenceNumber());
        } else if (m instanceof AppendEntriesFailureResponse r) {
            header(out, APPEND_FAILURE, m);
            out.writeLong(r.getExpectedNextIndex()).writeLong(r.getQuerySequenceNumber()).writeLong(r.getFlowControlSequenceNumber());
        } else if (m instanceof InstallSnapshotRequest r) {
            header(out, INSTALL_SNAPSHOT_REQUEST, m);
            out.writeBoolean(r.isSenderLeader()).writeInt(r.getSnapshotTerm()).writeLong(r.getSnapshotIndex())
                    .writeInt(r.getTotalSnapshotChunkCount()).writeLong(r.getQuerySequenceNumber()).writeLong(r.getFlowControlSequenceNumber());
            out.writeBoolean(r.getSnapshotChunk() != null);
            if (r.getSnapshotChunk() != null) writeSnapshotChunk(r.getSnapshotChunk(), out);
            writeEndpoints(r.getSnapshottedMembers(), out);
            out.writeBoolean(r.getGroupMembersView() != null);
            if (r.getGroupMembersView() != null) writeMembersView(r.getGroupMembersView(), out);
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

    private static void header(ByteBuf out, byte type, RaftMessage m) {
        out.writeByte(type);
        writeEndpoint(m.getSender(), out);
        out.writeInt(m.getTerm());
    }

    static RaftMessage decode(ByteBuf in) {
        byte type = in.readByte();
        RaftEndpoint sender = readEndpoint(in);
        int term = in.readInt();
        return switch (type) {
            case APPEND_REQUEST -> {
                var b = MODEL.createAppendEntriesRequestBuilder().setGroupId(GROUP_ID).setSender(sender).setTerm(term)
                        .setPreviousLogTerm(in.readInt()).setPreviousLogIndex(in.readLong()).setCommitIndex(in.readLong())
                        .setQuerySequenceNumber(in.readLong()).setFlowControlSequenceNumber(in.readLong());
                int n = in.readInt();
                List<LogEntry> entries = new ArrayList<>(n);
                for (int i = 0; i < n; i++) entries.add(readLogEntry(in));
                yield b.setLogEntries(entries).build();
            }
            case APPEND_SUCCESS -> MODEL.createAppendEntriesSuccessResponseBuilder().setGroupId(GROUP_ID).setSender(sender).setTerm(term)
                    .setLastLogIndex(in.readLong()).setQuerySequenceNumber(in.readLong()).setFlowControlSequenceNumber(in.readLong()).build();
            case APPEND_FAILURE -> MODEL.createAppendEntriesFailureResponseBuilder().setGroupId(GROUP_ID).setSender(sender).setTerm(term)
                    .setExpectedNextIndex(in.readLong()).setQuerySequenceNumber(in.readLong()).setFlowControlSequenceNumber(in.readLong()).build();
            case INSTALL_SNAPSHOT_REQUEST -> {
                var b = MODEL.createInstallSnapshotRequestBuilder().setGroupId(GROUP_ID).setSender(sender).setTerm(term)
                        .setSenderLeader(in.readBoolean()).setSnapshotTerm(in.readInt()).setSnapshotIndex(in.readLong())
                        .setTotalSnapshotChunkCount(in.readInt()).setQuerySequenceNumber(in.readLong()).setFlowControlSequenceNumber(in.readLong());
                b.setSnapshotChunk(in.readBoolean() ? readSnapshotChunk(in) : null);
                b.setSnapshottedMembers(readEndpoints(in));
                b.setGroupMembersView(in.readBoolean() ? readMembersView(in) : null);
                yield b.build();
            }
            case INSTALL_SNAPSHOT_RESPONSE -> MODEL.createInstallSnapshotResponseBuilder().setGroupId(GROUP_ID).setSender(sender).setTerm(term)
                    .setSnapshotIndex(in.readLong()).setRequestedSnapshotChunkIndex(in.readInt()).setQuerySequenceNumber(in.readLong())
                    .setFlowControlSequenceNumber(in.readLong()).build();
            case PRE_VOTE_REQUEST -> MODEL.createPreVoteRequestBuilder().setGroupId(GROUP_ID).setSender(sender).setTerm(term)
                    .setLastLogTerm(in.readInt()).setLastLogIndex(in.readLong()).build();
            case PRE_VOTE_RESPONSE -> MODEL.createPreVoteResponseBuilder().setGroupId(GROUP_ID).setSender(sender).setTerm(term)
                    .setGranted(in.readBoolean()).build();
            case TRIGGER_ELECTION -> MODEL.createTriggerLeaderElectionRequestBuilder().setGroupId(GROUP_ID).setSender(sender).setTerm(term)
                    .setLastLogTerm(in.readInt()).setLastLogIndex(in.readLong()).build();
            case VOTE_REQUEST -> MODEL.createVoteRequestBuilder().setGroupId(GROUP_ID).setSender(sender).setTerm(term)
                    .setLastLogTerm(in.readInt()).setLastLogIndex(in.readLong()).setSticky(in.readBoolean()).build();
            case VOTE_RESPONSE -> MODEL.createVoteResponseBuilder().setGroupId(GROUP_ID).setSender(sender).setTerm(term)
                    .setGranted(in.readBoolean()).build();
            default -> throw new IllegalArgumentException("unknown Raft message type " + type);
        };
    }

    static void writeLogEntry(LogEntry e, ByteBuf out) {
        out.writeLong(e.getIndex()).writeInt(e.getTerm());
        writeOperation(e.getOperation(), out);
    }

    static LogEntry readLogEntry(ByteBuf in) {
        long index = in.readLong();
        int term = in.readInt();
        return MODEL.createLogEntryBuilder().setIndex(index).setTerm(term).setOperation(readOperation(in)).build();
    }

    static void writeSnapshotChunk(SnapshotChunk c, ByteBuf out) {
        out.writeLong(c.getIndex()).writeInt(c.getTerm()).writeInt(c.getSnapshotChunkIndex()).writeInt(c.getSnapshotChunkCount());
        writeOperation(c.getOperation(), out);
        out.writeBoolean(c.getGroupMembersView() != null);
        if (c.getGroupMembersView() != null) writeMembersView(c.getGroupMembersView(), out);
    }

    static SnapshotChunk readSnapshotChunk(ByteBuf in) {
        var b = MODEL.createSnapshotChunkBuilder().setIndex(in.readLong()).setTerm(in.readInt()).setSnapshotChunkIndex(in.readInt())
                .setSnapshotChunkCount(in.readInt()).setOperation(readOperation(in));
        if (in.readBoolean()) b.setGroupMembersView(readMembersView(in));
        return b.build();
    }

    static void writeMembersView(RaftGroupMembersView v, ByteBuf out) {
        out.writeLong(v.getLogIndex());
        writeEndpoints(v.getMembers(), out);
        writeEndpoints(v.getVotingMembers(), out);
    }

    static RaftGroupMembersView readMembersView(ByteBuf in) {
        return MODEL.createRaftGroupMembersViewBuilder().setLogIndex(in.readLong()).setMembers(readEndpoints(in))
                .setVotingMembers(readEndpoints(in)).build();
    }

    private static void writeOperation(Object op, ByteBuf out) {
        if (op instanceof byte[] bytes) {
            out.writeByte(OP_BYTES).writeInt(bytes.length).writeBytes(bytes);
        } else if (op == null) {
            out.writeByte(OP_NULL);
        } else if (op instanceof SnapshotMarker marker) {
            out.writeByte(OP_SNAPSHOT_MARKER).writeLong(marker.appliedIndex());
        } else if (op instanceof UpdateRaftGroupMembersOp u) {
            out.writeByte(OP_UPDATE_MEMBERS);
            writeEndpoints(u.getMembers(), out);
            writeEndpoints(u.getVotingMembers(), out);
            writeEndpoint(u.getEndpoint(), out);
            out.writeByte(modeCode(u.getMode()));
        } else {
            throw new IllegalArgumentException("no encoding for log operation " + op.getClass().getName());
        }
    }

    /** Explicit codes, as cairn-replication's ModelCodec: the enum's order is MicroRaft's, not ours. */
    private static int modeCode(MembershipChangeMode mode) {
        return switch (mode) {
            case ADD_LEARNER -> 0;
            case ADD_OR_PROMOTE_TO_FOLLOWER -> 1;
            case REMOVE_MEMBER -> 2;
        };
    }

    private static MembershipChangeMode readMode(ByteBuf in) {
        int mode = in.readByte();
        return switch (mode) {
            case 0 -> MembershipChangeMode.ADD_LEARNER;
            case 1 -> MembershipChangeMode.ADD_OR_PROMOTE_TO_FOLLOWER;
            case 2 -> MembershipChangeMode.REMOVE_MEMBER;
            default -> throw new IllegalArgumentException("unknown membership change mode " + mode);
        };
    }

    private static Object readOperation(ByteBuf in) {
        byte tag = in.readByte();
        return switch (tag) {
            case OP_BYTES -> {
                byte[] bytes = new byte[in.readInt()];
                in.readBytes(bytes);
                yield bytes;
            }
            case OP_NULL -> null;
            case OP_SNAPSHOT_MARKER -> new SnapshotMarker(in.readLong());
            case OP_UPDATE_MEMBERS -> MODEL.createUpdateRaftGroupMembersOpBuilder().setMembers(readEndpoints(in))
                    .setVotingMembers(readEndpoints(in)).setEndpoint(readEndpoint(in))
                    .setMode(readMode(in)).build();
            default -> throw new IllegalArgumentException("unknown log operation tag " + tag);
        };
    }

    static void writeEndpoint(RaftEndpoint e, ByteBuf out) {
        if (e == null) {
            out.writeByte(0);
            return;
        }
        byte[] id = e.getId().toString().getBytes(StandardCharsets.UTF_8);
        if (id.length == 0 || id.length > 255) throw new IllegalArgumentException("endpoint id of " + id.length + " bytes: " + e);
        out.writeByte(id.length).writeBytes(id);
    }

    static RaftEndpoint readEndpoint(ByteBuf in) {
        int length = in.readUnsignedByte();
        if (length == 0) return null;
        String id = in.toString(in.readerIndex(), length, StandardCharsets.UTF_8);
        in.skipBytes(length);
        return MicroEndpoint.of(id);
    }

    private static void writeEndpoints(Collection<RaftEndpoint> endpoints, ByteBuf out) {
        if (endpoints == null) {
            out.writeShort(-1);
            return;
        }
        out.writeShort(endpoints.size());
        for (RaftEndpoint e : endpoints) writeEndpoint(e, out);
    }

    private static List<RaftEndpoint> readEndpoints(ByteBuf in) {
        int n = in.readShort();
        if (n < 0) return null;
        List<RaftEndpoint> endpoints = new ArrayList<>(n);
        for (int i = 0; i < n; i++) endpoints.add(readEndpoint(in));
        return endpoints;
    }
}
