package io.cairn.storage;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Properties;
import java.util.UUID;
import java.util.function.BooleanSupplier;

/**
 * Who a storage node's data folder belongs to, and whether it can be trusted with a vote (issue 21;
 * seed 002's DiskGenID). The file {@value #FILE} in the node's folder names the node, its replicaset
 * and the folder's disk id, generated when the folder was first used, and says whether the node is
 * <em>rejoining</em>: back on a new or damaged folder in a replicaset that already holds data. A
 * rejoining member neither votes nor serves reads until it has caught up with its leader
 * ({@link io.cairn.replication.ReplicaConfig#rejoining()}); then {@link #caughtUp()} records it.
 *
 * <p>What {@link #open} finds in the folder:
 * <ul>
 *   <li>a folder of another node or replicaset: refused ({@link ErrorCode#FOREIGN_FOLDER});</li>
 *   <li>the database and the engine's log both there: the node as it was (a folder from before this
 *       file existed gets one, trusted);</li>
 *   <li>only one of the two (say {@code db/} deleted while the log survived): damaged; what is left is
 *       moved aside to {@code damaged-<time>/}, never deleted, and the node rejoins on an empty folder;</li>
 *   <li>neither: a new folder. It rejoins if its replicaset already holds data (the coordinator knows
 *       whether the replicaset created its buckets), else it is one of the first members of a new group.</li>
 * </ul>
 */
public final class DiskIdentity {
    private static final Logger log = LoggerFactory.getLogger(DiskIdentity.class);
    static final String FILE = "IDENTITY";
    private static final DateTimeFormatter ASIDE = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

    private final Path file;
    private final String node;
    private final String replicaset;
    private final String disk;
    private volatile String reason;
    private volatile boolean rejoining;
    /** The folder held the node's data when it started (a restart, not a new or damaged folder). */
    private final boolean restart;

    private DiskIdentity(Path file, String node, String replicaset, String disk, boolean rejoining, String reason, boolean restart) {
        this.file = file;
        this.node = node;
        this.replicaset = replicaset;
        this.disk = disk;
        this.rejoining = rejoining;
        this.reason = reason;
        this.restart = restart;
    }

    /**
     * Inspects (and where needed marks or repairs) node {@code node}'s folder.
     *
     * @param groupHoldsData asked only for a new folder: whether the replicaset already holds data
     * @throws CairnException FOREIGN_FOLDER when the folder belongs to another node or replicaset
     */
    public static DiskIdentity open(Path nodeDir, String node, String replicaset, ReplicationEngine engine, BooleanSupplier groupHoldsData)
            throws IOException {
        Files.createDirectories(nodeDir);
        Path file = nodeDir.resolve(FILE);
        Properties marked = read(file);
        if (marked != null && (!node.equals(marked.getProperty("node")) || !replicaset.equals(marked.getProperty("replicaset")))) {
            throw new CairnException(ErrorCode.FOREIGN_FOLDER, nodeDir + " belongs to node " + marked.getProperty("node") + " of replicaset "
                    + marked.getProperty("replicaset") + ", not to node " + node + " of replicaset " + replicaset
                    + ": check the node's id and dataDir in the config, or give the node an empty folder");
        }
        Path db = nodeDir.resolve("db");
        Path raftPart = engine.folderIn(nodeDir);
        boolean hasDb = Files.isDirectory(db);
        boolean hasLog = Files.isDirectory(raftPart);
        DiskIdentity id;
        if (hasDb && hasLog) {
            if (marked != null) return new DiskIdentity(file, node, replicaset, marked.getProperty("disk"),
                    Boolean.parseBoolean(marked.getProperty("rejoining")), marked.getProperty("reason", ""), true);
            id = new DiskIdentity(file, node, replicaset, UUID.randomUUID().toString(), false, "", true);
        } else if (hasDb || hasLog) {
            Path aside = nodeDir.resolve("damaged-" + ASIDE.format(Instant.now()));
            Files.createDirectories(aside);
            for (Path part : new Path[] {db, raftPart}) {
                if (Files.exists(part)) Files.move(part, aside.resolve(part.getFileName()), StandardCopyOption.ATOMIC_MOVE);
            }
            String lost = hasDb ? "its log (" + raftPart.getFileName() + "/) was missing" : "its database (db/) was missing";
            id = fresh(file, node, replicaset, true, lost + "; what was left is kept in " + aside.getFileName() + "/");
        } else {
            boolean replaced = groupHoldsData.getAsBoolean();
            id = fresh(file, node, replicaset, replaced, replaced ? "started on an empty folder in a replicaset that holds data" : "");
        }
        id.write();
        if (id.rejoining) {
            log.warn("REPLACED_DISK: node {} of replicaset {} {}: it rejoins as a member that neither votes nor serves until it has "
                    + "caught up with its leader (disk {})", node, replicaset, id.reason, id.disk);
        }
        return id;
    }

    private static DiskIdentity fresh(Path file, String node, String replicaset, boolean rejoining, String reason) {
        return new DiskIdentity(file, node, replicaset, UUID.randomUUID().toString(), rejoining, reason, false);
    }

    /** Whether the folder held the node's data when it started: a restart, which is checked against the record of what it acknowledged. */
    public boolean restart() {
        return restart;
    }

    /** Records that the node must catch up before it votes and serves (its log is older than what it acknowledged). */
    public synchronized void rejoin(String why) throws IOException {
        if (rejoining) return;
        reason = why;
        rejoining = true;
        write();
        log.warn("REPLACED_DISK: node {} of replicaset {} {}: it neither votes nor serves until it has caught up with its leader (disk {})",
                node, replicaset, why, disk);
    }

    /** The folder's disk id, generated when it was first used. */
    public String disk() {
        return disk;
    }

    /** Whether the node has yet to catch up with its leader before it may vote and serve. */
    public boolean rejoining() {
        return rejoining;
    }

    /** Why the node rejoins (empty when it does not). */
    public String reason() {
        return reason;
    }

    /** Records that the node caught up with its leader: after a restart it votes at once. */
    public synchronized void caughtUp() throws IOException {
        if (!rejoining) return;
        rejoining = false;
        write();
        log.info("node {} of replicaset {} caught up with its leader: it votes and serves again (disk {})", node, replicaset, disk);
    }

    private synchronized void write() throws IOException {
        Properties p = new Properties();
        p.setProperty("node", node);
        p.setProperty("replicaset", replicaset);
        p.setProperty("disk", disk);
        p.setProperty("rejoining", Boolean.toString(rejoining));
        if (rejoining) p.setProperty("reason", reason);
        Path tmp = file.resolveSibling(FILE + ".tmp");
        try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
            p.store(w, "Cairn storage node folder: do not copy it to another node");
        }
        try (FileChannel c = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
            c.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private static Properties read(Path file) throws IOException {
        if (!Files.exists(file)) return null;
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        return p;
    }
}
