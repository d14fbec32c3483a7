package io.cairn.raftbench.microraft;

import io.microraft.RaftEndpoint;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/** A member's Raft identity: its harness id ({@code m0}, {@code m1}, ...). Equal by id. */
record MicroEndpoint(String id) implements RaftEndpoint {
    private static final ConcurrentMap<String, MicroEndpoint> BY_ID = new ConcurrentHashMap<>();

    /** One shared instance per id, so decoded messages do not allocate an endpoint each. */
    static MicroEndpoint of(String id) {
        return BY_ID.computeIfAbsent(id, MicroEndpoint::new);
    }

    @Override
    public Object getId() {
        return id;
    }

    @Override
    public String toString() {
        return id;
    }
}
