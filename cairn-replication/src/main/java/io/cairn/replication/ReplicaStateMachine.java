package io.cairn.replication;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

/**
 * The storage side of the port: what the engine calls. {@link #apply} runs in log order on one
 * thread; {@link #query} may run on any thread, concurrently with apply.
 *
 * <p>Durability is split as in Cairn today: the engine's log is the durable copy of every entry;
 * the state machine writes each applied entry together with its index ({@link #appliedIndex()})
 * without forcing, and after a crash the engine replays the log from that index on. Snapshots are
 * checkpoints of the state machine's files, shipped to a follower that is too far behind.
 */
public interface ReplicaStateMachine {
    /** Applies a committed entry at {@code index}; returns the reply for its proposer. Must be deterministic. */
    byte[] apply(long index, long term, ByteBuffer command);

    /** Answers a read from the applied state. */
    byte[] query(ByteBuffer query);

    /** The last index applied and written (not necessarily forced): where replay after a restart starts. */
    long appliedIndex();

    /**
     * Writes a checkpoint of the state at log index {@code index} into the empty folder {@code dir} and
     * returns its files, relative to {@code dir}. Called between applies, once every entry up to
     * {@code index} is applied; the entries after the last one {@link #apply} saw changed nothing (a
     * membership change never reaches the state machine), so the checkpoint must say {@code index}.
     */
    List<Path> checkpoint(Path dir, long index) throws IOException;

    /** Replaces the whole state with the checkpoint in {@code dir} (taken at {@code index}). Called between applies. */
    void restore(Path dir, long index) throws IOException;
}
