package io.cairn.raftbench.microraft;

import io.microraft.RaftEndpoint;
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
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;

/**
 * MicroRaft's persistence: one append-only log file of checksummed records (log entries, truncation
 * marks, snapshot chunks) and two small files rewritten atomically (the term and vote; the local
 * endpoint and initial members). Records are buffered in memory and written in {@link #flush()},
 * which then forces the file ({@code FileChannel.force(false)}, an fdatasync): MicroRaft calls it
 * before a follower acknowledges appended entries and before the leader counts its own log towards
 * the commit quorum, so an entry is acknowledged only once it is on disk.
 * <p>
 * Opening a folder that holds an earlier log restores it ({@link #restoredState()}); a torn record
 * at the end (a crash mid-write) is cut off. The log file is never compacted: truncation and snapshot
 * records only mark what a restore skips. All methods but the counters run on the Raft node's thread.
 */
final class FileRaftStore implements RaftStore, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FileRaftStore.class);

    private static final byte ENTRY = 1;
    private static final byte TRUNCATE_FROM = 2;
    private static final byte TRUNCATE_UNTIL = 3;
    private static final byte SNAPSHOT_CHUNK = 4;
    private static final byte DELETE_SNAPSHOT_CHUNKS = 5;

    private static final int HEADER = 8; // body length, CRC32C of the body
    private static final int MAX_RECORD = 1 << 30;
    /** Buffered records past this are written (not forced) before the next flush, to bound memory. */
    private static final int WRITE_THRESHOLD = 8 << 20;

    private final Path dir;
    private final Path logFile;
    private final FileChannel log;
    private final ByteBuf buffer = Unpooled.directBuffer(1 << 20);
    private final CRC32C crc = new CRC32C();
    private final RestoredRaftState restored;

    private RaftEndpointPersistentState localEndpoint;
    private RaftGroupMembersView initialMembers;

    private final AtomicLong forces = new AtomicLong();
    private final AtomicLong entriesPersisted = new AtomicLong();
    private final AtomicLong bytesWritten = new AtomicLong();

    FileRaftStore(Path dir) throws IOException {
        this.dir = dir;
        Files.createDirectories(dir);
        logFile = dir.resolve("log");
        boolean existed = Files.exists(logFile);
        log = FileChannel.open(logFile, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            restored = existed ? restore() : null;
            if (restored == null) {
                log.truncate(0); // nothing usable from an earlier run (or no earlier run)
                forceDirectory();
            }
        } catch (IOException | RuntimeException e) {
            log.close();
            buffer.release();
            throw e;
        }
    }

    /** The state of an earlier run in this folder, or {@code null} if there was none. */
    RestoredRaftState restoredState() {
        return restored;
    }

    long forces() {
        return forces.get();
    }

    long entriesPersisted() {
        return entriesPersisted.get();
    }

    long bytesWritten() {
        return bytesWritten.get();
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
        try {
            b.writeInt(state.getTerm());
            MessageCodec.writeEndpoint(state.getVotedFor(), b);
            writeAtomically("term", b);
        } finally {
            b.release();
        }
    }

    @Override
    public void persistLogEntries(List<LogEntry> entries) throws IOException {
        for (LogEntry e : entries) {
            int at = begin(ENTRY);
            MessageCodec.writeLogEntry(e, buffer);
            end(at);
            if (buffer.readableBytes() >= WRITE_THRESHOLD) write();
        }
        entriesPersisted.addAndGet(entries.size());
    }

    @Override
    public void persistSnapshotChunk(SnapshotChunk chunk) throws IOException {
        int at = begin(SNAPSHOT_CHUNK);
        MessageCodec.writeSnapshotChunk(chunk, buffer);
        end(at);
    }

    @Override
    public void truncateLogEntriesFrom(long indexInclusive) {
        int at = begin(TRUNCATE_FROM);
        buffer.writeLong(indexInclusive);
        end(at);
    }

    @Override
    public void truncateLogEntriesUntil(long indexInclusive) {
        int at = begin(TRUNCATE_UNTIL);
        buffer.writeLong(indexInclusive);
        end(at);
    }

    @Override
    public void deleteSnapshotChunks(long index, int chunkCount) {
        int at = begin(DELETE_SNAPSHOT_CHUNKS);
        buffer.writeLong(index).writeInt(chunkCount);
        end(at);
    }

    /** Writes what is buffered and forces the log file to disk; everything persisted before is durable on return. */
    @Override
    public void flush() throws IOException {
        write();
        log.force(false);
        forces.incrementAndGet();
    }

    @Override
    public void close() throws IOException {
        try {
            log.close();
        } finally {
            buffer.release();
        }
    }

    private int begin(byte type) {
        int at = buffer.writerIndex();
        buffer.writeLong(0);
        buffer.writeByte(type);
        return at;
    }

    private void end(int at) {
        int length = buffer.writerIndex() - at - HEADER;
        crc.reset();
        crc.update(buffer.nioBuffer(at + HEADER, length));
        buffer.setInt(at, length);
        buffer.setInt(at + 4, (int) crc.getValue());
    }

    private void write() throws IOException {
        int n = buffer.readableBytes();
        if (n == 0) return;
        ByteBuffer b = buffer.nioBuffer();
        while (b.hasRemaining()) log.write(b);
        buffer.clear();
        bytesWritten.addAndGet(n);
    }

    private void writeMeta() throws IOException {
        ByteBuf b = Unpooled.buffer(256);
        try {
            b.writeBoolean(localEndpoint != null);
            if (localEndpoint != null) {
                MessageCodec.writeEndpoint(localEndpoint.getLocalEndpoint(), b);
                b.writeBoolean(localEndpoint.isVoting());
            }
            b.writeBoolean(initialMembers != null);
            if (initialMembers != null) MessageCodec.writeMembersView(initialMembers, b);
            writeAtomically("meta", b);
        } finally {
            b.release();
        }
    }

    /** Replaces {@code name} with a checksummed copy of {@code body}: a forced temporary file renamed over it, then the folder forced. */
    private void writeAtomically(String name, ByteBuf body) throws IOException {
        crc.reset();
        crc.update(body.nioBuffer());
        ByteBuffer out = ByteBuffer.allocate(HEADER + body.readableBytes());
        out.putInt(body.readableBytes()).putInt((int) crc.getValue()).put(body.nioBuffer()).flip();
        Path tmp = dir.resolve(name + ".tmp");
        try (FileChannel c = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            while (out.hasRemaining()) c.write(out);
            c.force(true);
        }
        Files.move(tmp, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        forceDirectory();
    }

    private void forceDirectory() throws IOException {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }

    private ByteBuf readAtomic(String name) throws IOException {
        Path file = dir.resolve(name);
        if (!Files.exists(file)) return null;
        ByteBuf b = Unpooled.wrappedBuffer(Files.readAllBytes(file));
        int length = b.readInt();
        int sum = b.readInt();
        crc.reset();
        crc.update(b.nioBuffer(b.readerIndex(), Math.min(length, b.readableBytes())));
        if (length != b.readableBytes() || (int) crc.getValue() != sum) throw new IOException(file + " is damaged");
        return b;
    }

    private RestoredRaftState restore() throws IOException {
        ByteBuf meta = readAtomic("meta");
        if (meta == null) return null;
        if (meta.readBoolean()) {
            localEndpoint = MessageCodec.MODEL.createRaftEndpointPersistentStateBuilder().setLocalEndpoint(MessageCodec.readEndpoint(meta))
                    .setVoting(meta.readBoolean()).build();
        }
        if (meta.readBoolean()) initialMembers = MessageCodec.readMembersView(meta);
        if (localEndpoint == null || initialMembers == null) return null; // never started far enough to persist anything else
        RaftTermPersistentState term;
        ByteBuf t = readAtomic("term");
        if (t == null) {
            term = MessageCodec.MODEL.createRaftTermPersistentStateBuilder().setTerm(0).setVotedFor(null).build();
        } else {
            int value = t.readInt();
            RaftEndpoint votedFor = MessageCodec.readEndpoint(t);
            term = MessageCodec.MODEL.createRaftTermPersistentStateBuilder().setTerm(value).setVotedFor(votedFor).build();
        }

        List<LogEntry> entries = new ArrayList<>();
        Map<Long, Map<Integer, SnapshotChunk>> chunks = new HashMap<>();
        List<SnapshotChunk> snapshot = null;
        long size = log.size();
        long position = 0;
        ByteBuffer header = ByteBuffer.allocate(HEADER);
        long records = 0;
        while (position + HEADER <= size) {
            header.clear();
            readFully(header, position);
            int length = header.getInt(0);
            int sum = header.getInt(4);
            if (length <= 0 || length > MAX_RECORD || position + HEADER + length > size) break;
            ByteBuffer body = ByteBuffer.allocate(length);
            readFully(body, position + HEADER);
            crc.reset();
            crc.update(body.flip());
            if ((int) crc.getValue() != sum) break;
            ByteBuf r = Unpooled.wrappedBuffer(body.rewind());
            switch (r.readByte()) {
                case ENTRY -> {
                    LogEntry e = MessageCodec.readLogEntry(r);
                    while (!entries.isEmpty() && entries.get(entries.size() - 1).getIndex() >= e.getIndex()) entries.remove(entries.size() - 1);
                    entries.add(e);
                }
                case TRUNCATE_FROM -> {
                    long from = r.readLong();
                    while (!entries.isEmpty() && entries.get(entries.size() - 1).getIndex() >= from) entries.remove(entries.size() - 1);
                }
                case TRUNCATE_UNTIL -> {
                    long until = r.readLong();
                    entries.removeIf(e -> e.getIndex() <= until);
                }
                case SNAPSHOT_CHUNK -> {
                    SnapshotChunk c = MessageCodec.readSnapshotChunk(r);
                    Map<Integer, SnapshotChunk> of = chunks.computeIfAbsent(c.getIndex(), i -> new HashMap<>());
                    of.put(c.getSnapshotChunkIndex(), c);
                    if (of.size() == c.getSnapshotChunkCount() && (snapshot == null || snapshot.get(0).getIndex() < c.getIndex())) {
                        snapshot = new ArrayList<>(of.values());
                        snapshot.sort(Comparator.comparingInt(SnapshotChunk::getSnapshotChunkIndex));
                    }
                }
                case DELETE_SNAPSHOT_CHUNKS -> chunks.remove(r.readLong());
                default -> throw new IOException(logFile + ": unknown record type at " + position);
            }
            position += HEADER + length;
            records++;
        }
        if (position < size) {
            LOG.warn("{}: cutting off {} bytes of a torn or damaged record at {}", logFile, size - position, position);
            log.truncate(position);
            log.force(false);
        }
        log.position(position);

        SnapshotEntry snapshotEntry = null;
        long after = 0;
        if (snapshot != null) {
            SnapshotChunk first = snapshot.get(0);
            snapshotEntry = MessageCodec.MODEL.createSnapshotEntryBuilder().setIndex(first.getIndex()).setTerm(first.getTerm())
                    .setSnapshotChunks(snapshot).setGroupMembersView(first.getGroupMembersView()).build();
            after = first.getIndex();
        }
        List<LogEntry> kept = new ArrayList<>();
        for (LogEntry e : entries) {
            if (e.getIndex() <= after) continue;
            if (e.getIndex() != after + kept.size() + 1) {
                LOG.warn("{}: log entry {} does not follow {}; dropping it and later ones", logFile, e.getIndex(), after + kept.size());
                break;
            }
            kept.add(e);
        }
        LOG.info("{}: restored term {}, {} log entries after snapshot index {} ({} records)", logFile, term.getTerm(), kept.size(), after, records);
        return new RestoredRaftState(localEndpoint, initialMembers, term, snapshotEntry, kept);
    }

    private void readFully(ByteBuffer b, long position) throws IOException {
        while (b.hasRemaining()) {
            if (log.read(b, position + b.position()) < 0) throw new IOException(logFile + ": unexpected end at " + position);
        }
    }
}
