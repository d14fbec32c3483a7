package io.cairn.replication.microraft;

import com.sun.nio.file.ExtendedOpenOption;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * An append-only log of checksummed records in numbered segment files ({@code 00000000000000000007.seg}).
 * Records are buffered and written by {@link #write()}; {@link #force()} makes everything written
 * durable. A segment is forced before the next one is started, so only the last can end in a torn
 * record, which {@link #replay} cuts off. Each segment remembers the highest log index it holds, so
 * whole segments below a snapshot can be deleted ({@link #deleteSegmentsUpTo}).
 *
 * <p>Where the file system allows it, segments are written past the page cache ({@code O_DIRECT}, whole
 * blocks, the last partial block written again with each write) into zeros laid down ahead of the data
 * ({@link #ZEROED_AHEAD} at a time), so that a force changes no file metadata: on this project's VMs that
 * made a force 3x cheaper in kernel CPU and 3-5x quicker than appending through the page cache
 * (docs/benchmarks.md, "The Raft log past the page cache"). A segment may therefore end in zeros, which
 * replay takes for the end of the data; anything else after the last intact record is a torn write,
 * which is cut off (and so can never be read back as a record once later ones are written over it).
 * Not thread-safe: the Raft thread alone uses it.
 */
final class SegmentedLog implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SegmentedLog.class);
    private static final int HEADER = 8; // body length, CRC32C of the body
    private static final int MAX_RECORD = Integer.MAX_VALUE - HEADER;
    /** Buffered records past this are written (not forced) before the next flush, to bound memory. */
    private static final int WRITE_THRESHOLD = 8 << 20;
    /** Zeros written ahead of a direct segment's data at a time: a force changes the file's size only once per this many bytes. */
    static final int ZEROED_AHEAD = 2 << 20;

    private final Path dir;
    private final long segmentBytes;
    private final ByteBuf buffer = Unpooled.directBuffer(1 << 20);
    private final CRC32C crc = new CRC32C();
    private final List<Segment> segments = new ArrayList<>();
    /** Block size for direct writes; 0 when segments are written through the page cache. */
    private final int block;
    private FileChannel current;
    /** Where the current segment's data ends (a direct segment's file goes on in zeros up to {@link #zeroedTo}). */
    private long end;
    private long zeroedTo;
    /** Direct writes: block-aligned staging (a whole number of blocks) for the last partial block and what follows it. */
    private ByteBuffer aligned;
    private ByteBuffer zeros;
    private long bufferedMaxIndex;

    private static final class Segment {
        final long number;
        final Path file;
        long maxIndex;

        Segment(long number, Path file) {
            this.number = number;
            this.file = file;
        }
    }

    SegmentedLog(Path dir, long segmentBytes) throws IOException {
        this(dir, segmentBytes, true);
    }

    /** @param direct whether to try writing past the page cache (tests also run the other way) */
    SegmentedLog(Path dir, long segmentBytes, boolean direct) throws IOException {
        this.dir = dir;
        this.segmentBytes = segmentBytes;
        Files.createDirectories(dir);
        this.block = direct ? directBlockSize(dir) : 0;
        if (block > 0) {
            aligned = alignedBuffer(1 << 20);
            zeros = alignedBuffer(1 << 20);
        }
    }

    /** The file system's block size if it takes direct writes in {@code dir}, else 0. */
    private static int directBlockSize(Path dir) {
        Path probe = dir.resolve("direct-probe");
        try {
            int size = (int) Files.getFileStore(dir).getBlockSize();
            if (size <= 0 || size > (1 << 16) || Integer.bitCount(size) != 1) return 0;
            try (FileChannel c = FileChannel.open(probe, StandardOpenOption.CREATE, StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT)) {
                ByteBuffer b = alignedDirect(size, size);
                c.write(b, 0);
            }
            return size;
        } catch (IOException | UnsupportedOperationException e) {
            LOG.debug("{}: the Raft log is written through the page cache ({})", dir, e.toString());
            return 0;
        } finally {
            try {
                Files.deleteIfExists(probe);
            } catch (IOException ignored) {
                // a leftover probe file is harmless: replay reads *.seg only
            }
        }
    }

    private ByteBuffer alignedBuffer(int capacity) {
        return alignedDirect(capacity, block);
    }

    /** A direct buffer of {@code capacity} bytes (zeros) whose address is a multiple of {@code alignment}. */
    private static ByteBuffer alignedDirect(int capacity, int alignment) {
        return ByteBuffer.allocateDirect(capacity + alignment).alignedSlice(alignment).limit(capacity);
    }

    /** Whether segments are written past the page cache. */
    boolean direct() {
        return block > 0;
    }

    /**
     * Hands every intact record, in order, to {@code record} (a view of its body, valid during the call)
     * and opens the last segment for appending, cutting off a torn tail. Call once, before appending.
     */
    void replay(Consumer<ByteBuf> record, IndexOf indexOf) throws IOException {
        List<Path> files;
        try (Stream<Path> list = Files.list(dir)) {
            files = list.filter(p -> p.getFileName().toString().endsWith(".seg")).sorted().toList();
        }
        long dataEnd = 0;
        for (int i = 0; i < files.size(); i++) {
            Path file = files.get(i);
            Segment s = new Segment(Long.parseLong(file.getFileName().toString().replace(".seg", "")), file);
            segments.add(s);
            dataEnd = replaySegment(s, record, indexOf);
            long size = Files.size(file);
            if (dataEnd < size && !zerosOnly(file, dataEnd, size)) {
                if (i < files.size() - 1) throw new IOException(file + " is damaged at " + dataEnd + " and is not the last segment");
                LOG.warn("{}: cutting off {} bytes of a torn record at {}", file, size - dataEnd, dataEnd);
                try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE)) {
                    c.truncate(dataEnd);
                    c.force(true);
                }
            }
        }
        if (segments.isEmpty()) startSegment(0);
        else openLast(dataEnd);
    }

    /** Whether the bytes of {@code file} from {@code from} to {@code size} are all zero (zeros laid down ahead of the data). */
    private static boolean zerosOnly(Path file, long from, long size) throws IOException {
        try (FileChannel c = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate(64 << 10);
            for (long at = from; at < size; ) {
                b.clear().limit((int) Math.min(b.capacity(), size - at));
                readFully(c, b, at);
                at += b.limit();
                for (int i = 0; i < b.limit(); i++) if (b.get(i) != 0) return false;
            }
            return true;
        }
    }

    /** Opens the last segment to write after its data, which ends at {@code dataEnd}. */
    private void openLast(long dataEnd) throws IOException {
        Path file = last().file;
        end = dataEnd;
        if (block > 0) {
            long size = Files.size(file);
            long blockEnd = roundUp(size);
            try (FileChannel c = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                if (blockEnd > size) c.write(ByteBuffer.allocate((int) (blockEnd - size)), size); // direct writes go in whole blocks
                int head = (int) (end % block);
                aligned.clear();
                readFully(c, aligned.duplicate().limit(head), end - head); // the partial block is written again with the next records
            }
            zeroedTo = blockEnd;
        }
        current = open(file, false);
    }

    private FileChannel open(Path file, boolean create) throws IOException {
        List<OpenOption> options = new ArrayList<>(List.of(StandardOpenOption.WRITE));
        if (create) options.add(StandardOpenOption.CREATE_NEW);
        if (block > 0) options.add(ExtendedOpenOption.DIRECT);
        return FileChannel.open(file, options.toArray(OpenOption[]::new));
    }

    private long roundUp(long n) {
        return (n + block - 1) / block * block;
    }

    /** The log index a record holds, or 0 for a record that holds none. */
    interface IndexOf {
        long of(ByteBuf body);
    }

    private long replaySegment(Segment s, Consumer<ByteBuf> record, IndexOf indexOf) throws IOException {
        try (FileChannel c = FileChannel.open(s.file, StandardOpenOption.READ)) {
            long size = c.size();
            long position = 0;
            ByteBuffer header = ByteBuffer.allocate(HEADER);
            while (position + HEADER <= size) {
                header.clear();
                readFully(c, header, position);
                int length = header.getInt(0);
                if (length <= 0 || length > MAX_RECORD || position + HEADER + length > size) break;
                ByteBuffer body = ByteBuffer.allocate(length);
                readFully(c, body, position + HEADER);
                body.flip();
                crc.reset();
                crc.update(body.duplicate());
                if ((int) crc.getValue() != header.getInt(4)) break;
                ByteBuf b = Unpooled.wrappedBuffer(body);
                s.maxIndex = Math.max(s.maxIndex, indexOf.of(b.duplicate()));
                record.accept(b);
                position += HEADER + length;
            }
            return position;
        }
    }

    /** Starts a record; write its body to {@link #buffer()}, then call {@link #end}. */
    int begin() {
        int at = buffer.writerIndex();
        buffer.writeLong(0);
        return at;
    }

    ByteBuf buffer() {
        return buffer;
    }

    /** Ends the record begun at {@code at}, which holds log index {@code index} (0: none). */
    void end(int at, long index) throws IOException {
        int length = buffer.writerIndex() - at - HEADER;
        crc.reset();
        crc.update(buffer.nioBuffer(at + HEADER, length));
        buffer.setInt(at, length);
        buffer.setInt(at + 4, (int) crc.getValue());
        bufferedMaxIndex = Math.max(bufferedMaxIndex, index);
        if (buffer.readableBytes() >= WRITE_THRESHOLD) write();
    }

    /** Writes buffered records to the current segment (not forced); starts a new segment when it is full. */
    void write() throws IOException {
        writeBuffered();
        if (end >= segmentBytes) roll();
    }

    private void writeBuffered() throws IOException {
        if (buffer.readableBytes() == 0) return;
        ByteBuffer data = buffer.nioBuffer();
        int length = data.remaining();
        if (block > 0) {
            writeDirect(data);
        } else {
            writeFully(data, end);
        }
        end += length;
        buffer.clear();
        last().maxIndex = Math.max(last().maxIndex, bufferedMaxIndex);
        bufferedMaxIndex = 0;
    }

    /**
     * Writes {@code data} after the segment's data in whole blocks, through {@link #aligned} a buffer at a time:
     * the partial last block (kept at its front) again, then the data, then zeros to the last block's end.
     */
    private void writeDirect(ByteBuffer data) throws IOException {
        int head = (int) (end % block);
        long at = end - head;
        zeroAhead(roundUp(end + data.remaining()));
        aligned.clear().position(head);
        while (true) {
            int n = Math.min(data.remaining(), aligned.remaining());
            aligned.put(data.slice(data.position(), n));
            data.position(data.position() + n);
            if (!data.hasRemaining()) break;
            at = writeFully(aligned.flip(), at); // a full buffer: whole blocks
            aligned.clear();
        }
        int filled = aligned.position();
        int padded = (int) roundUp(filled);
        aligned.put(zeros.duplicate().position(0).limit(padded - filled)).flip();
        writeFully(aligned, at);
        int newHead = filled % block;
        if (newHead > 0) aligned.put(0, aligned, padded - block, newHead);
    }

    /** Writes all of {@code b} at {@code at}; where it ends. */
    private long writeFully(ByteBuffer b, long at) throws IOException {
        while (b.hasRemaining()) at += current.write(b, at);
        return at;
    }

    /** Lays down zeros past the data up to at least {@code limit}, {@link #ZEROED_AHEAD} at a time. */
    private void zeroAhead(long limit) throws IOException {
        if (limit <= zeroedTo) return;
        long to = Math.max(limit, zeroedTo + ZEROED_AHEAD);
        while (zeroedTo < to) {
            ByteBuffer z = zeros.duplicate().position(0).limit((int) Math.min(zeros.capacity(), to - zeroedTo));
            zeroedTo = writeFully(z, zeroedTo);
        }
    }

    void force() throws IOException {
        current.force(false);
    }

    /** Writes and forces what is buffered, then starts a new segment (unless the current one is empty). */
    void roll() throws IOException {
        writeBuffered();
        if (end == 0) return;
        current.force(false);
        current.close();
        startSegment(last().number + 1);
    }

    /** Deletes every segment but the current one whose records all hold indexes at or below {@code index}. */
    int deleteSegmentsUpTo(long index) throws IOException {
        int deleted = 0;
        while (segments.size() > 1 && segments.get(0).maxIndex <= index) {
            Files.delete(segments.remove(0).file);
            deleted++;
        }
        if (deleted > 0) SnapshotFiles.force(dir);
        return deleted;
    }

    int segmentCount() {
        return segments.size();
    }

    private Segment last() {
        return segments.get(segments.size() - 1);
    }

    private void startSegment(long number) throws IOException {
        Segment s = new Segment(number, dir.resolve(String.format("%020d.seg", number)));
        current = open(s.file, true);
        end = 0;
        zeroedTo = 0;
        segments.add(s);
        SnapshotFiles.force(dir);
    }

    private static void readFully(FileChannel c, ByteBuffer b, long position) throws IOException {
        while (b.hasRemaining()) {
            if (c.read(b, position + b.position()) < 0) throw new IOException("unexpected end at " + position);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            if (current != null) current.close();
        } finally {
            buffer.release();
        }
    }
}
