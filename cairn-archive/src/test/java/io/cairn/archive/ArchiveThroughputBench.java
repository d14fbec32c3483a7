package io.cairn.archive;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The figures of docs/benchmarks.md "Archive tier foundation": a bucket of 100,000 keys with 100-byte
 * values archived (stage + upload + HEAD verify) and read back (stream + verify) on the folder store
 * and on s3proxy, and a server-side copy against a copy through the client. Not a test: run with
 * {@code -Dcairn.archive.bench=true -Dtest=ArchiveThroughputBench}. One warm-up round, then the
 * median of five; figures are printed as BENCH lines. Ratios matter more than absolutes (shared 2-core VM).
 */
@EnabledIfSystemProperty(named = "cairn.archive.bench", matches = "true")
class ArchiveThroughputBench {
    private static final int KEYS = 100_000;
    private static final int VALUE_BYTES = 100;
    private static final int ROUNDS = 5;

    @TempDir
    Path dir;

    private record Round(double archiveSeconds, double readSeconds, ArchiveRef ref) {}

    private static Round round(BucketArchiver archiver, String prefix, int round) {
        long t0 = System.nanoTime();
        ArchiveRef ref = archiver.archive(prefix, 1, round, new ArchiveEntries(round, KEYS, VALUE_BYTES));
        long t1 = System.nanoTime();
        long read;
        try (BucketArchiveReader reader = archiver.open(ref)) {
            read = reader.verifyToEnd().keyCount();
        }
        long t2 = System.nanoTime();
        assertThat(read).isEqualTo(KEYS);
        return new Round((t1 - t0) / 1e9, (t2 - t1) / 1e9, ref);
    }

    private static double median(double[] xs) {
        double[] s = xs.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }

    private double[] measure(String name, ObjectStore store) {
        BucketArchiver archiver = new BucketArchiver(store, dir.resolve("staging-" + name));
        round(archiver, "bench-" + name + "/warmup", 0);
        double[] archive = new double[ROUNDS];
        double[] read = new double[ROUNDS];
        ArchiveRef ref = null;
        for (int i = 0; i < ROUNDS; i++) {
            Round r = round(archiver, "bench-" + name + "/rs", i + 1);
            archive[i] = r.archiveSeconds();
            read[i] = r.readSeconds();
            ref = r.ref();
        }
        double a = median(archive);
        double rd = median(read);
        double mb = ref.byteCount() / 1e6;
        System.out.printf("BENCH %s archive: %.3f s, %.0f keys/s, %.1f MB/s (object %.1f MB); read+verify: %.3f s, %.0f keys/s, %.1f MB/s%n",
                name, a, KEYS / a, mb / a, ref.sizeBytes() / 1e6, rd, KEYS / rd, mb / rd);
        return new double[] {a, rd};
    }

    @Test
    void archiveAndReadThroughputOnBothStoresAndServerSideCopy() throws Exception {
        // the test's entry generator alone (random values): part of every figure below
        double[] generate = new double[ROUNDS];
        for (int i = 0; i <= ROUNDS; i++) {
            long t0 = System.nanoTime();
            long sum = 0;
            for (ArchiveEntries e = new ArchiveEntries(i, KEYS, VALUE_BYTES); e.hasNext(); ) sum += e.next().value()[0];
            if (i > 0) generate[i - 1] = (System.nanoTime() - t0) / 1e9;
            assertThat(sum).isNotEqualTo(Long.MIN_VALUE);
        }
        System.out.printf("BENCH entry generator only: %.3f s%n", median(generate));
        // the format alone, into a local file: the floor under both stores
        double[] staging = new double[ROUNDS];
        for (int i = 0; i <= ROUNDS; i++) {
            long t0 = System.nanoTime();
            BucketArchiveWriter.write(dir.resolve("w"), 1, i, new ArchiveEntries(i, KEYS, VALUE_BYTES));
            if (i > 0) staging[i - 1] = (System.nanoTime() - t0) / 1e9;
        }
        System.out.printf("BENCH format only (write to a local file): %.3f s, %.0f keys/s%n", median(staging), KEYS / median(staging));

        double[] folder;
        try (LocalFolderObjectStore store = new LocalFolderObjectStore(dir.resolve("folder"))) {
            folder = measure("folder", store);
        }
        try (S3ProxyServer server = S3ProxyServer.start(); CountingTcpProxy wire = new CountingTcpProxy(server.endpoint());
             S3ObjectStore store = S3ProxyServer.storeAt(wire.endpoint(), "bench")) {
            double[] s3 = measure("s3proxy", store);
            System.out.printf("BENCH ratio s3proxy/folder: archive %.2fx the time, read %.2fx%n", s3[0] / folder[0], s3[1] / folder[1]);

            BucketArchiver archiver = new BucketArchiver(store, dir.resolve("staging-copy"));
            ArchiveRef ref = archiver.archive("bench-copy/rs1", 2, 1, new ArchiveEntries(99, KEYS, VALUE_BYTES));
            double[] copy = new double[ROUNDS];
            long copyBytes = 0;
            for (int i = 0; i < ROUNDS; i++) {
                wire.reset();
                long t0 = System.nanoTime();
                archiver.copyTo(ref, "bench-copy/dest" + i);
                copy[i] = (System.nanoTime() - t0) / 1e9;
                copyBytes = wire.sentBytes() + wire.receivedBytes();
            }
            double[] through = new double[ROUNDS];
            long throughBytes = 0;
            for (int i = 0; i < ROUNDS; i++) {
                wire.reset();
                long t0 = System.nanoTime();
                Path tmp = dir.resolve("through");
                try (InputStream in = store.get(ref.objectKey())) {
                    Files.copy(in, tmp, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
                store.put("bench-copy/through" + i + "/obj", ObjectBody.of(tmp), Map.of());
                through[i] = (System.nanoTime() - t0) / 1e9;
                throughBytes = wire.sentBytes() + wire.receivedBytes();
            }
            System.out.printf("BENCH server-side copy of %.1f MB (copy + HEAD verify): %.1f ms, %d bytes through the client; "
                            + "GET+PUT through the client: %.1f ms, %d bytes; time ratio %.2fx, byte ratio %.5fx%n",
                    ref.sizeBytes() / 1e6, median(copy) * 1e3, copyBytes, median(through) * 1e3, throughBytes,
                    median(copy) / median(through), copyBytes / (double) throughBytes);
        }
    }
}
