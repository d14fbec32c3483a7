package io.cairn.storage;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.topology.MemberIds;
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
import java.util.function.Function;

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
    /** The Raft member id the node runs as on this folder ({@link io.cairn.core.topology.MemberIds}). */
    private final String member;
    private volatile String reason;
    private volatile boolean rejoining;
    private volatile boolean setAside;
    /** The folder held the node's data when it started (a restart, not a new or damaged folder). */
    private final boolean restart;

    private DiskIdentity(Path file, String node, String replicaset, String disk, String member, boolean rejoining, String reason, boolean restart) {
        this.file = file;
        this.node = node;
        this.replicaset = replicaset;
        this.disk = disk;
        this.member = member;
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
        return open(nodeDir, node, replicaset, engine, groupHoldsData, () -> false, disk -> null);
    }

    /**
     * @param newMember          asked of a node that rejoins on a new or damaged folder: whether it runs as a new Raft
     *                           member ({@link io.cairn.core.topology.MemberIds#onNewDisk}), which joins as a learner,
     *                           because the group has a member of this node already; false keeps the node's own id
     * @param otherDisk          asked, when a new member is possible, of a folder that holds the node's data and was not
     *                           rejoining: why its disk is not the one on record ({@link io.cairn.core.topology.DiskCheck}),
     *                           or null. A folder of another disk is set aside like a damaged one: its member, no longer
     *                           the node's member in the group, cannot rejoin it (see {@link io.cairn.core.topology.MemberIds})
     */
    public static DiskIdentity open(Path nodeDir, String node, String replicaset, ReplicationEngine engine, BooleanSupplier groupHoldsData,
                                    BooleanSupplier newMember, Function<String, String> otherDisk) throws IOException {
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
        String notOnRecord = null;
        if (hasDb && hasLog && marked != null) {
            notOnRecord = Boolean.parseBoolean(marked.getProperty("setAside")) ? marked.getProperty("reason", "its disk is not the one on record")
                    : Boolean.parseBoolean(marked.getProperty("rejoining")) ? null : otherDisk.apply(marked.getProperty("disk"));
        }
        if (hasDb && hasLog && notOnRecord == null) {
            if (marked != null) return new DiskIdentity(file, node, replicaset, marked.getProperty("disk"), marked.getProperty("member", node),
                    Boolean.parseBoolean(marked.getProperty("rejoining")), marked.getProperty("reason", ""), true);
            id = new DiskIdentity(file, node, replicaset, UUID.randomUUID().toString(), node, false, "", true);
        } else if (hasDb || hasLog) {
            Path aside = nodeDir.resolve("damaged-" + ASIDE.format(Instant.now()));
            Files.createDirectories(aside);
            for (Path part : new Path[] {db, raftPart}) {
                if (Files.exists(part)) Files.move(part, aside.resolve(part.getFileName()), StandardCopyOption.ATOMIC_MOVE);
            }
            String lost = notOnRecord != null ? notOnRecord : hasDb ? "its log (" + raftPart.getFileName() + "/) was missing" : "its database (db/) was missing";
            id = fresh(file, node, replicaset, true, notOnRecord != null || newMember.getAsBoolean(), lost + "; what was left is kept in " + aside.getFileName() + "/");
        } else {
            boolean replaced = groupHoldsData.getAsBoolean();
            id = fresh(file, node, replicaset, replaced, replaced && newMember.getAsBoolean(), replaced ? "started on an empty folder in a replicaset that holds data" : "");
        }
        id.write();
        if (id.rejoining && !id.member.equals(node)) {
            log.warn("REPLACED_DISK: node {} of replicaset {} {}: it rejoins as new member {}, which the coordinator adds as a learner (once the "
                    + "node's old member has left the voters) and promotes once caught up; it neither votes nor serves before (disk {})",
                    node, replicaset, id.reason, id.member, id.disk);
        } else if (id.rejoining) {
            log.warn("REPLACED_DISK: node {} of replicaset {} {}: it rejoins as a member that neither votes nor serves until it has "
                    + "caught up with its leader (disk {})", node, replicaset, id.reason, id.disk);
        }
        return id;
    }

    private static DiskIdentity fresh(Path file, String node, String replicaset, boolean rejoining, boolean newMember, String reason) {
        String disk = UUID.randomUUID().toString();
        String member = rejoining && newMember ? MemberIds.onNewDisk(node, disk) : node;
        return new DiskIdentity(file, node, replicaset, disk, member, rejoining, reason, false);
    }

    /** The Raft member id the node runs as on this folder: its own id, or its id on a new disk ({@link io.cairn.core.topology.MemberIds}). */
    public String member() {
        return member;
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

    /**
     * Records that the folder's disk is not the one on record, found after the node started (no record answered
     * before): the node rejoins, and at its next start the folder is set aside and it comes back as a new member.
     */
    public synchronized void setAsideAtNextStart(String why) throws IOException {
        reason = why;
        rejoining = true;
        setAside = true;
        write();
        log.warn("REPLACED_DISK: node {} of replicaset {} {}: its member {} is no longer the node's member in the group; it neither votes "
                + "nor serves; restart it: its folder is then set aside and it rejoins as a new member (disk {})", node, replicaset, why, member, disk);
    }

    /** Whether the folder is to be set aside at the next start ({@link #setAsideAtNextStart}). */
    public boolean setAside() {
        return setAside;
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
        p.setProperty("member", member);
        p.setProperty("rejoining", Boolean.toString(rejoining));
        if (rejoining) p.setProperty("reason", reason);
        if (setAside) p.setProperty("setAside", "true");
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
