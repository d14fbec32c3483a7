package io.cairn.archive;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Archive, verify, copy and restore of bucket archives, the same on every {@link ObjectStore}. */
abstract class BucketArchiverContract {
    protected abstract ObjectStore store();

    @TempDir
    Path staging;
    BucketArchiver archiver;
    String rs1;
    String rs2;

    @BeforeEach
    void setUp(TestInfo info) {
        archiver = new BucketArchiver(store(), staging);
        String base = "archiver-" + info.getTestMethod().orElseThrow().getName() + "-" + System.nanoTime();
        rs1 = base + "/rs1";
        rs2 = base + "/rs2";
    }

    private static long readAll(BucketArchiveReader reader, long seed, long keys, int valueBytes) {
        ArchiveEntries expected = new ArchiveEntries(seed, keys, valueBytes);
        long n = 0;
        try (reader) {
            while (reader.hasNext()) {
                ArchiveEntry got = reader.next();
                ArchiveEntry want = expected.next();
                assertThat(got.key()).isEqualTo(want.key());
                assertThat(got.value()).isEqualTo(want.value());
                n++;
            }
        }
        return n;
    }

    @Test
    void archivedBucketReadsBackVerifiedAtAContentAddressedKey() throws IOException {
        ArchiveRef ref = archiver.archive(rs1, 17, 3, new ArchiveEntries(1, 2_000, 100));
        assertThat(ref.objectKey()).isEqualTo(rs1 + "/buckets/17/3-" + ref.contentHash());
        assertThat(ref.keyCount()).isEqualTo(2_000);
        assertThat(archiver.isDurable(ref)).isTrue();
        ObjectInfo head = store().head(ref.objectKey()).orElseThrow();
        assertThat(head.sizeBytes()).isEqualTo(ref.sizeBytes());
        assertThat(head.metadata()).containsEntry("cairn-sha256", ref.contentHash()).containsEntry("cairn-bucket", "17")
                .containsEntry("cairn-generation", "3").containsEntry("cairn-keys", "2000");
        assertThat(readAll(archiver.open(ref), 1, 2_000, 100)).isEqualTo(2_000);
        try (Stream<Path> left = Files.list(staging)) {
            assertThat(left).as("staged archive files are removed").isEmpty();
        }
    }

    @Test
    void archivingTheSameContentsTwiceLandsOnTheSameSingleObject() {
        ArchiveRef first = archiver.archive(rs1, 5, 1, new ArchiveEntries(2, 100, 10));
        ArchiveRef again = archiver.archive(rs1, 5, 1, new ArchiveEntries(2, 100, 10));
        assertThat(again).isEqualTo(first);
        assertThat(store().list(BucketArchiver.bucketPrefix(rs1, 5), null, 10).objects()).hasSize(1);
    }

    @Test
    void aNewArchiveGetsANewKeyAndTheOldObjectStaysUntilDeleted() {
        ArchiveRef old = archiver.archive(rs1, 5, 1, new ArchiveEntries(2, 100, 10));
        ArchiveRef newer = archiver.archive(rs1, 5, 1, new ArchiveEntries(3, 120, 10));
        assertThat(newer.objectKey()).isNotEqualTo(old.objectKey());
        assertThat(archiver.isDurable(old)).as("restore-as-copy: the old object outlives the new archive").isTrue();
        archiver.delete(old);
        assertThat(archiver.isDurable(old)).isFalse();
        assertThat(store().list(BucketArchiver.bucketPrefix(rs1, 5), null, 10).objects())
                .extracting(ObjectInfo::key).containsExactly(newer.objectKey());
    }

    @Test
    void copyToPutsAVerifiedCopyUnderTheDestinationPrefix() {
        ArchiveRef ref = archiver.archive(rs1, 8, 2, new ArchiveEntries(4, 500, 50));
        ArchiveRef copy = archiver.copyTo(ref, rs2);
        assertThat(copy.objectKey()).isEqualTo(rs2 + "/buckets/8/2-" + ref.contentHash());
        assertThat(copy.contentHash()).isEqualTo(ref.contentHash());
        archiver.delete(ref);
        assertThat(readAll(archiver.open(copy), 4, 500, 50)).as("the copy stands alone").isEqualTo(500);
    }

    @Test
    void anObjectDeletedBehindOurBackFailsTheDurableCheck() {
        ArchiveRef ref = archiver.archive(rs1, 9, 1, new ArchiveEntries(5, 10, 10));
        store().delete(ref.objectKey());
        assertThat(archiver.isDurable(ref)).isFalse();
        assertThatThrownBy(() -> archiver.verify(ref))
                .isInstanceOfSatisfying(CairnException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.OBJECT_NOT_FOUND));
        assertThatThrownBy(() -> archiver.copyTo(ref, rs2))
                .isInstanceOfSatisfying(CairnException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.OBJECT_NOT_FOUND));
    }

    @Test
    void anObjectReplacedBehindOurBackIsCorruptForVerifyAndForTheReader() {
        ArchiveRef ref = archiver.archive(rs1, 9, 1, new ArchiveEntries(5, 10, 10));
        byte[] garbage = new byte[(int) ref.sizeBytes()];
        store().put(ref.objectKey(), ObjectBody.of(garbage), Map.of("cairn-sha256", "forged"));
        assertThat(archiver.isDurable(ref)).isFalse();
        assertThatThrownBy(() -> archiver.verify(ref))
                .isInstanceOfSatisfying(CairnException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ARCHIVE_CORRUPT));
        // same size and forged metadata matching the record: only reading the contents catches it
        store().put(ref.objectKey(), ObjectBody.of(garbage), Map.of("cairn-sha256", ref.contentHash(), "cairn-keys", "10"));
        assertThat(archiver.isDurable(ref)).isTrue();
        assertThatThrownBy(() -> archiver.open(ref).verifyToEnd())
                .isInstanceOfSatisfying(CairnException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ARCHIVE_CORRUPT));
    }
}
