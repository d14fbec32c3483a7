package io.cairn.storage;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The Raft engine under a storage node's replicaset (docs/raft-engines.md). Every member of a
 * replicaset must run the same one, and a node's folder stays with the engine that wrote it.
 */
public enum ReplicationEngine {
    /** Apache Ratis 3.3 (gRPC transport, Ratis's log and snapshots under {@code ratis/}): clusters started before MicroRaft. */
    RATIS,
    /** MicroRaft 0.7 behind the replication port, Cairn's own transport and log under {@code microraft/}: the default. */
    MICRORAFT;

    /** System property naming the default engine (lets the whole test suite run on either). */
    public static final String PROPERTY = "cairn.storage.engine";

    /** The engine a config that names none gets, unless {@value #PROPERTY} names another. */
    public static final ReplicationEngine BUILT_IN_DEFAULT = MICRORAFT;

    /** The engine a config that names none gets: {@value #PROPERTY} if set, else {@link #BUILT_IN_DEFAULT}. */
    public static ReplicationEngine defaultEngine() {
        String named = System.getProperty(PROPERTY);
        return named == null || named.isBlank() ? BUILT_IN_DEFAULT : parse(named);
    }

    /** @throws IllegalArgumentException naming the choices */
    public static ReplicationEngine parse(String name) {
        for (ReplicationEngine e : values()) if (e.configName().equals(name.trim().toLowerCase(Locale.ROOT))) return e;
        throw new IllegalArgumentException("storage.engine must be ratis or microraft, was '" + name + "'");
    }

    /** The name in config files. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** This engine's folder (log, snapshots) in a node's folder: named as the engine is in config files. */
    public Path folderIn(Path nodeDir) {
        return nodeDir.resolve(configName());
    }

    /**
     * Refuses a node folder another engine wrote: its database's applied index means nothing to this
     * engine's log.
     *
     * @throws CairnException INVALID_CONFIG naming the folder, both engines and the way out
     */
    void requireOwnFolder(Path nodeDir) {
        for (ReplicationEngine other : values()) {
            if (other == this || !Files.isDirectory(other.folderIn(nodeDir))) continue;
            throw new CairnException(ErrorCode.INVALID_CONFIG, nodeDir + " holds the data of a " + other.configName() + " member, and this node "
                    + "is configured with storage.engine " + configName() + ". A node's folder stays with its engine: set storage.engine: "
                    + other.configName() + " in the config (a cluster started before " + BUILT_IN_DEFAULT.configName() + " was the default), "
                    + "or start this node on an empty folder");
        }
    }
}
