package io.cairn.replication.microraft;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
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
 * Not thread-safe: the Raft thread alone uses it.
 */
final class SegmentedLog implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SegmentedLog.class);
    private static final int HEADER = 8; // body length, CRC32C of the body
    private static final int MAX_RECORD = Integer.MAX_VALUE - HEADER;
    /** Buffered records past this are written (not forced) before the next flush, to bound memory. */
    private static final int WRITE_THRESHOLD = 8 << 20;

    private final Path dir;
    private final long segmentBytes;
    private final ByteBuf buffer = Unpooled.directBuffer(1 << 20);
    private final CRC32C crc = new CRC32C();
    private final List<Segment> segments = new ArrayList<>();
    private FileChannel current;
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
        this.dir = dir;
        this.segmentBytes = segmentBytes;
        Files.createDirectories(dir);
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
        for (int i = 0; i < files.size(); i++) {
            Path file = files.get(i);
            Segment s = new Segment(Long.parseLong(file.getFileName().toString().replace(".seg", "")), file);
            segments.add(s);
            long end = replaySegment(s, record, indexOf);
            long size = Files.size(file);
            if (end < size) {
                if (i < files.size() - 1) throw new IOException(file + " is damaged at " + end + " and is not the last segment");
                LOG.warn("{}: cutting off {} bytes of a torn record at {}", file, size - end, end);
                try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE)) {
                    c.truncate(end);
                    c.force(true);
                }
            }
        }
        if (segments.isEmpty()) startSegment(0);
        else current = FileChannel.open(last().file, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
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
        if (current.position() >= segmentBytes) roll();
    }

    private void writeBuffered() throws IOException {
        if (buffer.readableBytes() > 0) {
            ByteBuffer b = buffer.nioBuffer();
            while (b.hasRemaining()) current.write(b);
            buffer.clear();
            last().maxIndex = Math.max(last().maxIndex, bufferedMaxIndex);
            bufferedMaxIndex = 0;
        }
    }

    void force() throws IOException {
        current.force(false);
    }

    /** Writes and forces what is buffered, then starts a new segment (unless the current one is empty). */
    void roll() throws IOException {
        writeBuffered();
        if (current.size() == 0) return;
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
        current = FileChannel.open(s.file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
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
