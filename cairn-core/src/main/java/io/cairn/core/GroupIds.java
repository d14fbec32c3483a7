package io.cairn.core;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

/** Raft group ids derived from names, so every process computes the same id without talking. */
public final class GroupIds {
    private GroupIds() {}

    public static UUID replicaset(String replicasetId) {
        return UUID.nameUUIDFromBytes(("cairn-replicaset:" + replicasetId).getBytes(StandardCharsets.UTF_8));
    }

    public static UUID coordinator() {
        return UUID.nameUUIDFromBytes("cairn-coordinator".getBytes(StandardCharsets.UTF_8));
    }
}
