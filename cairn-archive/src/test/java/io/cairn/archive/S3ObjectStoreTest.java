package io.cairn.archive;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The contract on a real S3 server (s3proxy on loopback), plus S3-only failures mapped to the catalogue. */
class S3ObjectStoreTest extends ObjectStoreContract {
    private static S3ProxyServer server;
    private static S3ObjectStore store;

    @BeforeAll
    static void start() throws Exception {
        server = S3ProxyServer.start();
        store = server.storeFor("cairn-contract");
    }

    @AfterAll
    static void stop() throws Exception {
        if (store != null) store.close();
        if (server != null) server.close();
    }

    @Override
    protected ObjectStore store() {
        return store;
    }

    @Test
    void wrongCredentialsAreRefusedNotRetriedForever() {
        try (S3ObjectStore wrong = new S3ObjectStore(S3Settings.at(server.endpoint(), S3ProxyServer.REGION,
                "cairn-contract", S3ProxyServer.ACCESS_KEY, "not-the-secret"))) {
            assertThatThrownBy(() -> wrong.put("creds/x", ObjectBody.of(new byte[1]), Map.of()))
                    .isInstanceOfSatisfying(CairnException.class, e -> {
                        assertThat(e.code()).as(e.getMessage()).isEqualTo(ErrorCode.OBJECT_STORE_REFUSED);
                        assertThat(e.getMessage()).contains("cairn-contract").contains("403");
                    });
        }
    }

    @Test
    void aMissingStoreBucketIsRefusedNotReportedAsAMissingObject() {
        try (S3ObjectStore noBucket = new S3ObjectStore(S3Settings.at(server.endpoint(), S3ProxyServer.REGION,
                "no-such-bucket", S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY))) {
            assertThatThrownBy(() -> noBucket.get("x").close())
                    .isInstanceOfSatisfying(CairnException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.OBJECT_STORE_REFUSED));
        }
    }

    @Test
    void aStoreThatDoesNotAnswerIsUnavailableAndRetryable() throws Exception {
        int closedPort;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        try (S3ObjectStore down = new S3ObjectStore(S3Settings.at(java.net.URI.create("http://127.0.0.1:" + closedPort),
                S3ProxyServer.REGION, "b", S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY))) {
            assertThatThrownBy(() -> down.head("x"))
                    .isInstanceOfSatisfying(CairnException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.OBJECT_STORE_UNAVAILABLE);
                        assertThat(e.code().retry).isEqualTo(io.cairn.core.RetryClass.RETRY_LATER);
                    });
        }
    }
}
