package io.cairn.archive;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BucketArchiveFormatTest {
    @TempDir
    Path dir;

    private byte[] written(int bucket, long generation, long keys, ArchiveSummary[] summary) throws IOException {
        Path file = dir.resolve("a");
        summary[0] = BucketArchiveWriter.write(file, bucket, generation, new ArchiveEntries(7, keys, 100));
        return Files.readAllBytes(file);
    }

    private static void assertSameEntries(BucketArchiveReader reader, long seed, long keys, int valueBytes) {
        ArchiveEntries expected = new ArchiveEntries(seed, keys, valueBytes);
        long n = 0;
        while (reader.hasNext()) {
            ArchiveEntry got = reader.next();
            ArchiveEntry want = expected.next();
            assertThat(got.key()).isEqualTo(want.key());
            assertThat(got.value()).isEqualTo(want.value());
            assertThat(got.expiresAtMs()).isEqualTo(want.expiresAtMs());
            n++;
        }
        assertThat(n).isEqualTo(keys);
    }

    private static void assertCorrupt(byte[] bytes, int bucket, long generation, String expectedHash) {
        assertThatThrownBy(() -> new BucketArchiveReader(new ByteArrayInputStream(bytes), bucket, generation, expectedHash).verifyToEnd())
                .isInstanceOfSatisfying(CairnException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ARCHIVE_CORRUPT));
    }

    @Test
    void entriesRoundTripWithCountsSizeAndHash() throws IOException {
        ArchiveSummary[] s = new ArchiveSummary[1];
        byte[] bytes = written(42, 3, 5_000, s);
        assertThat(s[0].keyCount()).isEqualTo(5_000);
        assertThat(s[0].byteCount()).isEqualTo(5_000L * (13 + 100));
        assertThat(s[0].sizeBytes()).isEqualTo(bytes.length);
        assertThat(s[0].contentHash()).hasSize(64);

        BucketArchiveReader reader = new BucketArchiveReader(new ByteArrayInputStream(bytes), 42, 3, s[0].contentHash());
        assertSameEntries(reader, 7, 5_000, 100);
        assertThat(reader.summary()).isEqualTo(s[0]);
    }

    @Test
    void anEmptyBucketIsAValidArchive() throws IOException {
        ArchiveSummary[] s = new ArchiveSummary[1];
        byte[] bytes = written(1, 0, 0, s);
        assertThat(new BucketArchiveReader(new ByteArrayInputStream(bytes), 1, 0, s[0].contentHash()).verifyToEnd()).isEqualTo(s[0]);
    }

    @Test
    void theHashDependsOnContentsAndGeneration() throws IOException {
        ArchiveSummary[] a = new ArchiveSummary[1];
        ArchiveSummary[] b = new ArchiveSummary[1];
        ArchiveSummary[] c = new ArchiveSummary[1];
        written(5, 1, 100, a);
        written(5, 1, 100, b);
        written(5, 2, 100, c);
        assertThat(a[0].contentHash()).isEqualTo(b[0].contentHash()).isNotEqualTo(c[0].contentHash());
    }

    @Test
    void aFlippedByteAnywhereIsCaught() throws IOException {
        ArchiveSummary[] s = new ArchiveSummary[1];
        byte[] bytes = written(9, 4, 300, s);
        // every field of the header, entries at the start, middle and end, the end tag, the trailer
        List<Integer> positions = List.of(0, 9, 13, 20, 30, 39, 40, 45, 60, bytes.length / 2,
                bytes.length - BucketArchiveFormat.TRAILER_BYTES - 1, bytes.length - 50, bytes.length - 40, bytes.length - 20, bytes.length - 1);
        for (int p : positions) {
            byte[] copy = Arrays.copyOf(bytes, bytes.length);
            copy[p] ^= 0x10;
            assertCorrupt(copy, 9, 4, null);
        }
    }

    @Test
    void truncationAndTrailingBytesAreCaught() throws IOException {
        ArchiveSummary[] s = new ArchiveSummary[1];
        byte[] bytes = written(9, 4, 300, s);
        for (int cut : new int[] {0, 10, BucketArchiveFormat.HEADER_BYTES, bytes.length / 2, bytes.length - 1})
            assertCorrupt(Arrays.copyOf(bytes, cut), 9, 4, null);
        assertCorrupt(Arrays.copyOf(bytes, bytes.length + 1), 9, 4, null);
    }

    @Test
    void anotherBucketGenerationOrRecordedHashIsRefused() throws IOException {
        ArchiveSummary[] s = new ArchiveSummary[1];
        byte[] bytes = written(9, 4, 10, s);
        assertCorrupt(bytes, 10, 4, null);
        assertCorrupt(bytes, 9, 5, null);
        assertCorrupt(bytes, 9, 4, "0".repeat(64));
    }

    @Test
    void theWriterRefusesKeysOutOfOrder() {
        List<ArchiveEntry> entries = List.of(new ArchiveEntry(new byte[] {2}, new byte[0], 0), new ArchiveEntry(new byte[] {1}, new byte[0], 0));
        assertThatThrownBy(() -> BucketArchiveWriter.write(dir.resolve("x"), 1, 1, entries.iterator()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("strictly increasing");
        List<ArchiveEntry> duplicate = List.of(new ArchiveEntry(new byte[] {1}, new byte[0], 0), new ArchiveEntry(new byte[] {1}, new byte[0], 0));
        assertThatThrownBy(() -> BucketArchiveWriter.write(dir.resolve("y"), 1, 1, duplicate.iterator()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void keysCompareAsUnsignedBytesLikeRocksDb() throws IOException {
        // 0x7f < 0x80 unsigned; a signed comparison would call this order wrong
        List<ArchiveEntry> entries = List.of(new ArchiveEntry(new byte[] {0x7f}, new byte[] {1}, 0),
                new ArchiveEntry(new byte[] {(byte) 0x80}, new byte[] {2}, 0));
        ArchiveSummary s = BucketArchiveWriter.write(dir.resolve("u"), 1, 1, entries.iterator());
        assertThat(s.keyCount()).isEqualTo(2);
    }
}
