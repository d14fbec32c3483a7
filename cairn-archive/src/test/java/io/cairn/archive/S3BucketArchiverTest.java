package io.cairn.archive;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The archiver contract on s3proxy, with the client talking through a byte-counting TCP proxy so
 * the S3 data plane's promise, no archive bytes through the node on a copy, is measured.
 */
class S3BucketArchiverTest extends BucketArchiverContract {
    private static S3ProxyServer server;
    private static CountingTcpProxy wire;
    private static S3ObjectStore store;

    @BeforeAll
    static void start() throws Exception {
        server = S3ProxyServer.start();
        wire = new CountingTcpProxy(server.endpoint());
        store = S3ProxyServer.storeAt(wire.endpoint(), "cairn-archiver");
    }

    @AfterAll
    static void stop() throws Exception {
        if (store != null) store.close();
        if (wire != null) wire.close();
        if (server != null) server.close();
    }

    @Override
    protected ObjectStore store() {
        return store;
    }

    @Test
    void serverSideCopyMovesNoArchiveBytesThroughTheClient() {
        wire.reset();
        ArchiveRef ref = archiver.archive(rs1, 77, 5, new ArchiveEntries(9, 20_000, 100));
        long uploaded = wire.sentBytes();
        assertThat(uploaded).as("the counter sees the upload").isGreaterThanOrEqualTo(ref.sizeBytes());

        wire.reset();
        ArchiveRef copy = archiver.copyTo(ref, rs2);
        long through = wire.sentBytes() + wire.receivedBytes();
        assertThat(archiver.isDurable(copy)).isTrue();
        // a COPY request, its XML answer and a HEAD: headers only, two orders of magnitude below the object
        assertThat(through).as("bytes through the client for a %d-byte copy", ref.sizeBytes())
                .isLessThan(16 * 1024).isLessThan(ref.sizeBytes() / 100);
    }
}
