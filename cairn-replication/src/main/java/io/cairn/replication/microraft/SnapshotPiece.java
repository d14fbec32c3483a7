package io.cairn.replication.microraft;

/**
 * One MicroRaft snapshot chunk as this engine keeps it: not bytes but a pointer to {@code length}
 * bytes at {@code offset} of {@code file} (relative to the snapshot's folder) in the snapshot taken
 * at {@code snapshotIndex} by member {@code source}. The transport reads the bytes from disk when it
 * sends the chunk and writes them to disk when it receives one, so a snapshot never sits in memory.
 * {@code source} keeps pieces of two members' snapshots (each member checkpoints its own state, and
 * the files differ) from being mixed into one.
 */
record SnapshotPiece(long snapshotIndex, String source, String file, long offset, int length) {
    /** The piece of a snapshot whose state machine wrote no file at all. */
    static final String NO_FILE = "";

    SnapshotPiece {
        if (offset < 0 || length < 0) throw new IllegalArgumentException("bad snapshot piece " + offset + "+" + length);
    }
}
