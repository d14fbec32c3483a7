package io.cairn.sim;

import io.cairn.core.move.BucketLedger;
import io.cairn.core.move.InMemoryReplicaset;
import io.cairn.core.move.MoveCodec;
import io.cairn.core.move.MoveCommand;
import io.cairn.core.move.MoveReply;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * One entry of a simulated replicaset's log, as data: a member that replays its log after a
 * crash, or a new member catching up, decodes and applies the same bytes every other member
 * applied. Move commands are stored with the production {@link MoveCodec} (the bytes a storage
 * node's Raft log holds) and applied through the production {@link BucketLedger}; the answer goes
 * back to the caller through {@link MoveCodec} too, as over the data plane.
 *
 * @param term the leader term that appended it (Raft's log matching: same index and term, same entry)
 */
record SimEntry(long term, Kind kind, byte[] body) {
    enum Kind {
        /** A new leader's first entry: once it commits, everything before it has (Raft's commit rule). */
        NOOP,
        /** A MoveCodec-encoded move command. */
        MOVE,
        /** A client write of one key (applied only while the bucket serves writes). */
        WRITE
    }

    static SimEntry noop(long term) {
        return new SimEntry(term, Kind.NOOP, new byte[0]);
    }

    static SimEntry move(long term, MoveCommand command) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        MoveCodec.encode(command, out);
        return new SimEntry(term, Kind.MOVE, out.toByteArray());
    }

    static SimEntry write(long term, int bucket, String key, String value) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        byte[] v = value.getBytes(StandardCharsets.UTF_8);
        return new SimEntry(term, Kind.WRITE, ByteBuffer.allocate(12 + k.length + v.length)
                .putInt(bucket).putInt(k.length).put(k).putInt(v.length).put(v).array());
    }

    /** The same entry appended by another leader (its term is the proposing leader's). */
    SimEntry inTerm(long newTerm) {
        return new SimEntry(newTerm, kind, body);
    }

    /**
     * Applies the entry to one member's state machine (or the replicaset's committed state) and
     * returns the answer as the caller sees it: a decoded {@link MoveReply}, a Boolean for a
     * write, null for the others.
     */
    Object applyTo(InMemoryReplicaset state) {
        ByteBuffer in = ByteBuffer.wrap(body);
        return switch (kind) {
            case NOOP -> null;
            case MOVE -> {
                MoveReply reply = BucketLedger.apply(MoveCodec.decodeCommand(in), state);
                yield MoveCodec.decodeReply(ByteBuffer.wrap(MoveCodec.encode(reply)));
            }
            case WRITE -> {
                int bucket = in.getInt();
                String key = string(in);
                yield state.write(bucket, key, string(in));
            }
        };
    }

    private static String string(ByteBuffer in) {
        byte[] b = new byte[in.getInt()];
        in.get(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return kind + "@t" + term;
    }
}
