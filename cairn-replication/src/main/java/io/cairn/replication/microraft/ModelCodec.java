package io.cairn.replication.microraft;

import io.microraft.MembershipChangeMode;
import io.microraft.RaftEndpoint;
import io.microraft.model.RaftModelFactory;
import io.microraft.model.groupop.UpdateRaftGroupMembersOp;
import io.microraft.model.impl.DefaultRaftModelFactory;
import io.microraft.model.log.LogEntry;
import io.microraft.model.log.RaftGroupMembersView;
import io.microraft.model.log.SnapshotChunk;
import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The binary form of what both the wire and the log file carry: log entries and their operations,
 * membership views, endpoints and snapshot chunks (as {@link SnapshotPiece} pointers). Decoding
 * checks every length against the bytes at hand, so a malformed input fails with an
 * {@link IllegalArgumentException} or {@link IndexOutOfBoundsException} rather than a huge allocation.
 */
final class ModelCodec {
    static final RaftModelFactory MODEL = new DefaultRaftModelFactory();

    private static final byte OP_NULL = 0;
    private static final byte OP_COMMAND = 1;
    private static final byte OP_NEW_TERM = 2;
    private static final byte OP_MEMBERS = 3;
    private static final byte OP_SNAPSHOT_PIECE = 4;

    private ModelCodec() {
    }

    static int sizeHint(Object operation) {
        return operation instanceof byte[] b ? b.length + 5 : 256;
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
        writeMembersView(c.getGroupMembersView(), out);
    }

    static SnapshotChunk readSnapshotChunk(ByteBuf in) {
        return MODEL.createSnapshotChunkBuilder().setIndex(in.readLong()).setTerm(in.readInt()).setSnapshotChunkIndex(in.readInt())
                .setSnapshotChunkCount(in.readInt()).setOperation(readOperation(in)).setGroupMembersView(readMembersView(in)).build();
    }

    static void writeMembersView(RaftGroupMembersView v, ByteBuf out) {
        out.writeBoolean(v != null);
        if (v == null) return;
        out.writeLong(v.getLogIndex());
        writeEndpoints(v.getMembers(), out);
        writeEndpoints(v.getVotingMembers(), out);
    }

    static RaftGroupMembersView readMembersView(ByteBuf in) {
        if (!in.readBoolean()) return null;
        return MODEL.createRaftGroupMembersViewBuilder().setLogIndex(in.readLong()).setMembers(readEndpoints(in))
                .setVotingMembers(readEndpoints(in)).build();
    }

    static void writeOperation(Object op, ByteBuf out) {
        if (op instanceof byte[] bytes) {
            out.writeByte(OP_COMMAND).writeInt(bytes.length).writeBytes(bytes);
        } else if (op == NewTermEntry.INSTANCE) {
            out.writeByte(OP_NEW_TERM);
        } else if (op instanceof SnapshotPiece p) {
            out.writeByte(OP_SNAPSHOT_PIECE);
            writeSnapshotPiece(p, out);
        } else if (op instanceof UpdateRaftGroupMembersOp u) {
            out.writeByte(OP_MEMBERS);
            writeEndpoints(u.getMembers(), out);
            writeEndpoints(u.getVotingMembers(), out);
            writeEndpoint(u.getEndpoint(), out);
            out.writeByte(modeCode(u.getMode()));
        } else if (op == null) {
            out.writeByte(OP_NULL);
        } else {
            throw new IllegalArgumentException("no encoding for log operation " + op.getClass().getName());
        }
    }

    static Object readOperation(ByteBuf in) {
        byte tag = in.readByte();
        return switch (tag) {
            case OP_COMMAND -> {
                byte[] bytes = new byte[checkedLength(in.readInt(), in)];
                in.readBytes(bytes);
                yield bytes;
            }
            case OP_NEW_TERM -> NewTermEntry.INSTANCE;
            case OP_SNAPSHOT_PIECE -> readSnapshotPiece(in);
            case OP_MEMBERS -> MODEL.createUpdateRaftGroupMembersOpBuilder().setMembers(readEndpoints(in))
                    .setVotingMembers(readEndpoints(in)).setEndpoint(readEndpoint(in)).setMode(readMode(in)).build();
            case OP_NULL -> null;
            default -> throw new IllegalArgumentException("unknown log operation tag " + tag);
        };
    }

    static void writeSnapshotPiece(SnapshotPiece p, ByteBuf out) {
        out.writeLong(p.snapshotIndex());
        writeString(p.source(), out);
        writeString(p.file(), out);
        out.writeLong(p.offset()).writeInt(p.length());
    }

    static SnapshotPiece readSnapshotPiece(ByteBuf in) {
        return new SnapshotPiece(in.readLong(), readString(in), readString(in), in.readLong(), in.readInt());
    }

    /** An endpoint with its address, as membership lists carry it. */
    static void writeEndpoint(RaftEndpoint e, ByteBuf out) {
        writeEndpointId(e, out);
        if (e != null) writeString(e instanceof Endpoint ep && ep.address() != null ? ep.address() : "", out);
    }

    static Endpoint readEndpoint(ByteBuf in) {
        String id = readEndpointId(in);
        return id == null ? null : new Endpoint(id, readString(in));
    }

    /** An endpoint's id alone, as message headers carry it. */
    static void writeEndpointId(RaftEndpoint e, ByteBuf out) {
        if (e == null) {
            out.writeShort(0);
            return;
        }
        writeString(Endpoint.idOf(e), out);
    }

    static String readEndpointId(ByteBuf in) {
        String id = readString(in);
        return id.isEmpty() ? null : id;
    }

    static void writeEndpoints(Collection<RaftEndpoint> endpoints, ByteBuf out) {
        if (endpoints == null) {
            out.writeShort(-1);
            return;
        }
        out.writeShort(endpoints.size());
        for (RaftEndpoint e : endpoints) writeEndpoint(e, out);
    }

    static List<RaftEndpoint> readEndpoints(ByteBuf in) {
        int n = in.readShort();
        if (n < 0) return null;
        List<RaftEndpoint> endpoints = new ArrayList<>(Math.min(n, in.readableBytes()));
        for (int i = 0; i < n; i++) endpoints.add(readEndpoint(in));
        return endpoints;
    }

    static void writeString(String s, ByteBuf out) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        if (b.length > Short.MAX_VALUE) throw new IllegalArgumentException("string of " + b.length + " bytes");
        out.writeShort(b.length).writeBytes(b);
    }

    static String readString(ByteBuf in) {
        int length = checkedLength(in.readShort(), in);
        String s = in.toString(in.readerIndex(), length, StandardCharsets.UTF_8);
        in.skipBytes(length);
        return s;
    }

    /** A length read from input, refused when negative or past the bytes left. */
    static int checkedLength(int length, ByteBuf in) {
        if (length < 0 || length > in.readableBytes()) {
            throw new IllegalArgumentException("length " + length + " with " + in.readableBytes() + " bytes left");
        }
        return length;
    }

    /** MicroRaft's enum, written into the log: fixed codes here, so a reordering in a new MicroRaft never changes old entries. */
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
}
