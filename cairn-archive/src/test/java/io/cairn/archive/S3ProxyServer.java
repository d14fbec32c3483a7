package io.cairn.archive;

import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;

import java.net.URI;

/** A real S3 server for tests: s3proxy with its in-memory NIO2 blob store, on 127.0.0.1, port chosen by the OS. */
final class S3ProxyServer implements AutoCloseable {
    static final String ACCESS_KEY = "cairn-test";
    static final String SECRET_KEY = "cairn-test-secret";
    static final String REGION = "us-east-1";

    private final S3Proxy proxy;
    private final URI endpoint;

    private S3ProxyServer(S3Proxy proxy) {
        this.proxy = proxy;
        this.endpoint = URI.create("http://127.0.0.1:" + proxy.getPort());
    }

    static S3ProxyServer start() throws Exception {
        S3Proxy proxy = S3Proxy.builder()
                .blobStore(new TransientNio2BlobStore())
                .endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
                .build();
        proxy.start(); // returns once Jetty listens: the port below is the bound one
        if (!"STARTED".equals(proxy.getState()) || proxy.getPort() <= 0)
            throw new IllegalStateException("s3proxy did not start: state " + proxy.getState() + ", port " + proxy.getPort());
        return new S3ProxyServer(proxy);
    }

    URI endpoint() {
        return endpoint;
    }

    S3ObjectStore storeFor(String bucket) {
        return storeAt(endpoint, bucket);
    }

    static S3ObjectStore storeAt(URI endpoint, String bucket) {
        S3ObjectStore store = new S3ObjectStore(S3Settings.at(endpoint, REGION, bucket, ACCESS_KEY, SECRET_KEY));
        store.createBucketIfMissing();
        return store;
    }

    @Override
    public void close() throws Exception {
        proxy.stop();
    }
}
