package io.cairn.replication.microraft;

import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The log's files on their own, written past the page cache (where the file system allows it) and through it:
 * what a restart reads back after clean stops, a torn write, and records written over a torn one.
 */
class SegmentedLogTest {
    @TempDir
    Path dir;

    /** A seeded run of records of random sizes over small segments, reopened at random points, in either write mode. */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void everyRecordWrittenIsReadBackInOrderAcrossRestartsAndSegments(boolean direct) throws IOException {
        long seed = System.nanoTime();
        System.out.println("SegmentedLogTest seed " + seed + ", direct requested " + direct);
        Random random = new Random(seed);
        List<String> written = new ArrayList<>();
        SegmentedLog log = open(direct, written);
        for (int i = 1; i <= 3_000; i++) {
            // mostly small records (a few per block), now and then one larger than a block or the staging buffer
            int size = random.nextInt(50) == 0 ? 4_000 + random.nextInt(1_200_000) : 1 + random.nextInt(300);
            String record = i + ":" + "x".repeat(size);
            append(log, record, i);
            written.add(record);
            if (random.nextInt(4) == 0) {
                log.write();
                log.force();
            }
            if (random.nextInt(300) == 0) {
                log.write();
                log.force();
                log.close();
                // a restart may also switch modes (a data folder moved to a file system without direct writes)
                log = open(random.nextBoolean(), written);
            }
        }
        log.write();
        log.force();
        log.close();
        open(direct, written).close();
        assertThat(segments()).as("small segments: the run rolled over several").hasSizeGreaterThan(3);
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void aTornTailIsCutAndRecordsWrittenOverItNeverBringBackTheOnesAfterIt(boolean direct) throws IOException {
        List<String> expected = new ArrayList<>();
        SegmentedLog log = open(direct, expected);
        // entry 5 ends exactly at the first 4 KiB block's end, so old entry 6 starts a block that writing
        // the new entry 5 does not touch (a direct write pads only to its last block's end)
        String fill = ".".repeat(4096 - 4 * (8 + 11) - 8 - 11);
        for (int i = 1; i <= 10; i++) append(log, "entry-" + i + "-old" + (i == 5 ? fill : ""), i);
        log.write();
        log.force();
        log.close();
        // a crash tore entry 5 while the blocks after it landed: its body no longer matches its checksum
        Path segment = segments().get(0);
        corrupt(segment, "entry-5-old");
        for (int i = 1; i <= 4; i++) expected.add("entry-" + i + "-old");
        log = open(direct, expected);
        // the new leader's entry 5 has exactly the old one's length: were the old bytes left after it,
        // old entry 6 would start where the new 5 ends and read back as intact
        append(log, "entry-5-new" + fill, 5);
        expected.add("entry-5-new" + fill);
        log.write();
        log.force();
        log.close();
        open(direct, expected).close();
        open(!direct, expected).close();
    }

    @Test
    void garbageAfterTheZerosOfADirectSegmentIsCutToo() throws IOException {
        List<String> expected = new ArrayList<>(List.of("one", "two"));
        SegmentedLog log = open(true, List.of());
        append(log, "one", 1);
        append(log, "two", 2);
        log.write();
        log.force();
        log.close();
        Path segment = segments().get(0);
        Files.write(segment, new byte[] {0, 0, 0, 40, 1, 2, 3}, StandardOpenOption.APPEND); // cut short by a crash
        open(true, expected).close();
        byte[] bytes = Files.readAllBytes(segment);
        assertThat(bytes.length).as("nothing of the torn record is left").isLessThan(segmentLength(bytes) + 4096 + 1);
        for (int i = segmentLength(bytes); i < bytes.length; i++) assertThat(bytes[i]).isZero();
    }

    private SegmentedLog open(boolean direct, List<String> expected) throws IOException {
        SegmentedLog log = new SegmentedLog(dir, 256 << 10, direct);
        List<String> read = new ArrayList<>();
        log.replay(body -> read.add(body.toString(StandardCharsets.UTF_8)), body -> 0);
        assertThat(read).as("what a restart reads back (direct writes: %s)", log.direct()).containsExactlyElementsOf(expected);
        return log;
    }

    private static void append(SegmentedLog log, String record, long index) throws IOException {
        int at = log.begin();
        ByteBuf buffer = log.buffer();
        buffer.writeBytes(record.getBytes(StandardCharsets.UTF_8));
        log.end(at, index);
    }

    private List<Path> segments() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".seg")).sorted().toList();
        }
    }

    private static void corrupt(Path segment, String inside) throws IOException {
        byte[] bytes = Files.readAllBytes(segment);
        int at = new String(bytes, StandardCharsets.ISO_8859_1).indexOf(inside);
        assertThat(at).isPositive();
        try (FileChannel c = FileChannel.open(segment, StandardOpenOption.WRITE)) {
            c.write(ByteBuffer.wrap(new byte[] {'X'}), at + inside.length() - 1);
            c.force(true);
        }
    }

    /** Where the records of a segment's bytes end: the first header that is not a record's. */
    private static int segmentLength(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        int at = 0;
        while (at + 8 <= bytes.length) {
            int length = b.getInt(at);
            if (length <= 0 || at + 8 + length > bytes.length) break;
            at += 8 + length;
        }
        return at;
    }
}
