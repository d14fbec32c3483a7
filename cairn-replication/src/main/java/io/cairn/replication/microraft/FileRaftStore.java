package io.cairn.replication.microraft;

import io.microraft.model.log.LogEntry;
import io.microraft.model.log.RaftGroupMembersView;
import io.microraft.model.log.SnapshotChunk;
import io.microraft.model.log.SnapshotEntry;
import io.microraft.model.persistence.RaftEndpointPersistentState;
import io.microraft.model.persistence.RaftTermPersistentState;
import io.microraft.persistence.RaftStore;
import io.microraft.persistence.RestoredRaftState;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

import static io.cairn.replication.microraft.ModelCodec.MODEL;

/**
 * MicroRaft's persistence in {@code dataDir/raft}: log entries in a {@link SegmentedLog}, and three
 * small files each replaced atomically (forced temporary file renamed over it): {@code meta} (this
 * member and the initial members), {@code term} (term and vote) and {@code snapshot} (the latest
 * complete snapshot's {@link SnapshotPiece}s). {@link #flush()} writes and forces the log: MicroRaft
 * calls it before a follower acknowledges entries and before the leader counts its own log toward a
 * commit, so an entry is acknowledged only once it is on disk.
 * <p>
 * A complete snapshot is recorded at the flush after its last chunk: its files are sealed first
 * ({@link SnapshotFiles#seal}), a new log segment is started, and once MicroRaft drops the entries
 * it covers ({@link #truncateLogEntriesUntil}) the segments holding only those are deleted.
 * Every method runs on the Raft thread.
 */
final class FileRaftStore implements RaftStore, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FileRaftStore.class);
    private static final byte ENTRY = 1;
    private static final byte TRUNCATE_FROM = 2;
    static final long SEGMENT_BYTES = 64L << 20;

    private final Path dir;
    private final SnapshotFiles snapshots;
    private final SegmentedLog log;
    private final TermRuns terms = new TermRuns();
    private final RestoredRaftState restored;
    private RaftEndpointPersistentState localEndpoint;
    private RaftGroupMembersView initialMembers;
    private final Map<Long, List<SnapshotChunk>> incompleteSnapshots = new HashMap<>();
    private List<SnapshotChunk> unrecordedSnapshot;
    private long snapshotIndex;
    private long truncatedUntil;

    FileRaftStore(Path dir, SnapshotFiles snapshots) throws IOException {
        this.dir = dir;
        this.snapshots = snapshots;
        Files.createDirectories(dir);
        log = new SegmentedLog(dir.resolve("log"), SEGMENT_BYTES);
        try {
            restored = restore();
        } catch (IOException | RuntimeException e) {
            log.close();
            throw e;
        }
    }

    /**
     * The highest log or snapshot index a member's folder {@code dataDir} holds (0 when it holds none), read
     * without starting the member: a restart checks it against what the member had acknowledged.
     */
    static long logEnd(Path dataDir) throws IOException {
        Path raft = dataDir.resolve("raft");
        if (!Files.isDirectory(raft)) return 0;
        try (FileRaftStore store = new FileRaftStore(raft, new SnapshotFiles(dataDir.resolve("snapshots"), "inspect"))) {
            RestoredRaftState r = store.restoredState();
            if (r == null) return 0;
            long end = r.getSnapshotEntry() == null ? 0 : r.getSnapshotEntry().getIndex();
            List<LogEntry> entries = r.getLogEntries();
            return entries.isEmpty() ? end : Math.max(end, entries.get(entries.size() - 1).getIndex());
        }
    }

    /** What an earlier run left in this folder, or null if it started none. */
    RestoredRaftState restoredState() {
        return restored;
    }

    TermRuns terms() {
        return terms;
    }

    int segmentCount() {
        return log.segmentCount();
    }

    @Override
    public void persistAndFlushLocalEndpoint(RaftEndpointPersistentState state) throws IOException {
        localEndpoint = state;
        writeMeta();
    }

    @Override
    public void persistAndFlushInitialGroupMembers(RaftGroupMembersView members) throws IOException {
        initialMembers = members;
        writeMeta();
    }

    @Override
    public void persistAndFlushTerm(RaftTermPersistentState state) throws IOException {
        ByteBuf b = Unpooled.buffer(64);
        b.writeInt(state.getTerm());
        ModelCodec.writeEndpointId(state.getVotedFor(), b);
        writeAtomically("term", b);
    }

    @Override
    public void persistLogEntries(List<LogEntry> entries) throws IOException {
        for (LogEntry e : entries) {
            int at = log.begin();
            log.buffer().writeByte(ENTRY);
            ModelCodec.writeLogEntry(e, log.buffer());
            log.end(at, e.getIndex());
            terms.appended(e.getIndex(), e.getTerm());
        }
    }

    @Override
    public void truncateLogEntriesFrom(long indexInclusive) throws IOException {
        int at = log.begin();
        log.buffer().writeByte(TRUNCATE_FROM).writeLong(indexInclusive);
        log.end(at, 0);
        terms.truncatedFrom(indexInclusive);
    }

    @Override
    public void truncateLogEntriesUntil(long indexInclusive) {
        truncatedUntil = Math.max(truncatedUntil, indexInclusive); // segments go at the next flush
        terms.forgetBefore(indexInclusive);
    }

    @Override
    public void persistSnapshotChunk(SnapshotChunk chunk) {
        List<SnapshotChunk> chunks = incompleteSnapshots.computeIfAbsent(chunk.getIndex(), i -> new ArrayList<>());
        chunks.removeIf(c -> c.getSnapshotChunkIndex() == chunk.getSnapshotChunkIndex());
        chunks.add(chunk);
        if (chunks.size() == chunk.getSnapshotChunkCount()) {
            incompleteSnapshots.keySet().removeIf(i -> i <= chunk.getIndex());
            chunks.sort(Comparator.comparingInt(SnapshotChunk::getSnapshotChunkIndex));
            unrecordedSnapshot = chunks;
        }
    }

    @Override
    public void deleteSnapshotChunks(long index, int chunkCount) {
        incompleteSnapshots.remove(index);
    }

    /** Writes and forces the log; records a completed snapshot; deletes segments the latest snapshot covers. */
    @Override
    public void flush() throws IOException {
        log.write();
        log.force();
        if (unrecordedSnapshot != null) recordSnapshot(unrecordedSnapshot);
        if (truncatedUntil > 0 && truncatedUntil <= snapshotIndex) {
            int deleted = log.deleteSegmentsUpTo(truncatedUntil);
            if (deleted > 0) LOG.info("{}: deleted {} log segments up to index {}", dir, deleted, truncatedUntil);
        }
    }

    private void recordSnapshot(List<SnapshotChunk> chunks) throws IOException {
        SnapshotChunk first = chunks.get(0);
        SnapshotPiece piece = (SnapshotPiece) first.getOperation();
        snapshots.seal(first.getIndex(), piece.source());
        ByteBuf b = Unpooled.buffer(256 + chunks.size() * 128);
        b.writeInt(chunks.size());
        for (SnapshotChunk c : chunks) ModelCodec.writeSnapshotChunk(c, b);
        writeAtomically("snapshot", b);
        unrecordedSnapshot = null;
        snapshotIndex = first.getIndex();
        log.roll(); // later entries start a segment of their own, so the earlier ones can go whole
        snapshots.retain(snapshotIndex);
    }

    @Override
    public void close() throws IOException {
        log.close();
    }

    private void writeMeta() throws IOException {
        ByteBuf b = Unpooled.buffer(256);
        b.writeBoolean(localEndpoint != null);
        if (localEndpoint != null) {
            ModelCodec.writeEndpoint(localEndpoint.getLocalEndpoint(), b);
            b.writeBoolean(localEndpoint.isVoting());
        }
        ModelCodec.writeMembersView(initialMembers, b);
        writeAtomically("meta", b);
    }

    private void writeAtomically(String name, ByteBuf body) throws IOException {
        CRC32C crc = new CRC32C();
        crc.update(body.nioBuffer());
        ByteBuffer out = ByteBuffer.allocate(8 + body.readableBytes());
        out.putInt(body.readableBytes()).putInt((int) crc.getValue()).put(body.nioBuffer()).flip();
        Path tmp = dir.resolve(name + ".tmp");
        try (FileChannel c = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            while (out.hasRemaining()) c.write(out);
            c.force(true);
        }
        Files.move(tmp, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        SnapshotFiles.force(dir);
    }

    private ByteBuf readAtomically(String name) throws IOException {
        Path file = dir.resolve(name);
        if (!Files.exists(file)) return null;
        ByteBuf b = Unpooled.wrappedBuffer(Files.readAllBytes(file));
        int length = b.readInt();
        int sum = b.readInt();
        CRC32C crc = new CRC32C();
        crc.update(b.nioBuffer(b.readerIndex(), Math.min(length, b.readableBytes())));
        if (length != b.readableBytes() || (int) crc.getValue() != sum) throw new IOException(file + " is damaged");
        return b;
    }

    private RestoredRaftState restore() throws IOException {
        ByteBuf meta = readAtomically("meta");
        if (meta != null) {
            if (meta.readBoolean()) {
                localEndpoint = MODEL.createRaftEndpointPersistentStateBuilder().setLocalEndpoint(ModelCodec.readEndpoint(meta))
                        .setVoting(meta.readBoolean()).build();
            }
            initialMembers = ModelCodec.readMembersView(meta);
        }
        SnapshotEntry snapshot = readSnapshot();
        List<LogEntry> entries = new ArrayList<>();
        log.replay(record -> replayRecord(record, entries), FileRaftStore::indexOfRecord);
        if (localEndpoint == null || initialMembers == null) return null; // never started far enough to persist anything else
        return new RestoredRaftState(localEndpoint, initialMembers, readTerm(), snapshot, entriesAfter(snapshot, entries));
    }

    private RaftTermPersistentState readTerm() throws IOException {
        ByteBuf t = readAtomically("term");
        int term = t == null ? 0 : t.readInt();
        String votedFor = t == null ? null : ModelCodec.readEndpointId(t);
        return MODEL.createRaftTermPersistentStateBuilder().setTerm(term).setVotedFor(votedFor == null ? null : new Endpoint(votedFor, null))
                .build();
    }

    private SnapshotEntry readSnapshot() throws IOException {
        ByteBuf b = readAtomically("snapshot");
        if (b == null) return null;
        int n = b.readInt();
        List<SnapshotChunk> chunks = new ArrayList<>(n);
        for (int i = 0; i < n; i++) chunks.add(ModelCodec.readSnapshotChunk(b));
        SnapshotChunk first = chunks.get(0);
        snapshotIndex = first.getIndex();
        snapshots.retain(snapshotIndex);
        return MODEL.createSnapshotEntryBuilder().setIndex(first.getIndex()).setTerm(first.getTerm()).setSnapshotChunks(chunks)
                .setGroupMembersView(first.getGroupMembersView()).build();
    }

    private static long indexOfRecord(ByteBuf body) {
        return body.readByte() == ENTRY ? body.readLong() : 0;
    }

    private static void replayRecord(ByteBuf record, List<LogEntry> entries) {
        byte type = record.readByte();
        if (type == ENTRY) {
            LogEntry e = ModelCodec.readLogEntry(record);
            while (!entries.isEmpty() && entries.get(entries.size() - 1).getIndex() >= e.getIndex()) entries.remove(entries.size() - 1);
            entries.add(e);
        } else if (type == TRUNCATE_FROM) {
            long from = record.readLong();
            while (!entries.isEmpty() && entries.get(entries.size() - 1).getIndex() >= from) entries.remove(entries.size() - 1);
        } else {
            throw new IllegalStateException("unknown log record type " + type);
        }
    }

    /** The restored entries that follow the snapshot without a gap; the term runs learn them. */
    private List<LogEntry> entriesAfter(SnapshotEntry snapshot, List<LogEntry> entries) {
        long after = snapshot == null ? 0 : snapshot.getIndex();
        if (snapshot != null) terms.appended(snapshot.getIndex(), snapshot.getTerm());
        List<LogEntry> kept = new ArrayList<>();
        for (LogEntry e : entries) {
            if (e.getIndex() <= after) continue;
            if (e.getIndex() != after + kept.size() + 1) {
                LOG.warn("{}: log entry {} does not follow {}; dropping it and later ones", dir, e.getIndex(), after + kept.size());
                break;
            }
            kept.add(e);
            terms.appended(e.getIndex(), e.getTerm());
        }
        LOG.info("{}: restored {} log entries after snapshot index {}", dir, kept.size(), after);
        return kept;
    }
}
