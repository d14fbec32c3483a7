package io.cairn.router.resp;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;
import io.cairn.router.KvBackend;
import io.cairn.router.resp.RawClient.Err;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** Backend failures become error replies for the command concerned; the connection lives on. */
class BackendFailureTest {
    private final ScriptedBackend backend = new ScriptedBackend(new InMemoryKvBackend());
    private TestServer server;

    @AfterEach
    void stop() {
        if (server != null) server.close();
        backend.close();
    }

    @Test
    void failedBackendFutureIsAnInternalErrorForThatCommandOnly() {
        backend.failWhen(op -> keyOf(op).startsWith("boom"));
        server = new TestServer(backend);
        try (RawClient client = server.client()) {
            assertThat(client.call("SET", "fine", "1")).isEqualTo("OK");
            assertThat(client.call("GET", "boom"))
                    .isEqualTo(new Err("ERR internal error: java.lang.IllegalStateException: injected failure"));
            assertThat(client.call("MGET", "fine", "boom:2")).isInstanceOf(Err.class);
            assertThat(client.call("GET", "fine")).isEqualTo("1");
        }
    }

    @Test
    void failedFutureInThePipelineKeepsTheOtherRepliesInOrder() {
        backend.failWhen(op -> keyOf(op).equals("boom"));
        backend.delayRandomly(7, 500);
        server = new TestServer(backend);
        try (RawClient client = server.client()) {
            client.send(new String(RawClient.encode("SET", "a", "1")) + new String(RawClient.encode("GET", "boom"))
                    + new String(RawClient.encode("GET", "a")));
            assertThat(client.read()).isEqualTo("OK");
            assertThat(client.read()).isInstanceOf(Err.class);
            assertThat(client.read()).isEqualTo("1");
        }
    }

    @Test
    void operationErrorsUseTheirCatalogueRedisPrefix() {
        backend.rejectWhen(op -> keyOf(op).startsWith("moving"), OpResult.error(ErrorCode.BUCKET_LOCKED, null));
        server = new TestServer(backend);
        try (RawClient client = server.client()) {
            assertThat(client.call("GET", "moving"))
                    .isEqualTo(new Err("TRYAGAIN bucket is being moved; retry shortly"));
            assertThat(client.call("DEL", "a", "moving:2"))
                    .isEqualTo(new Err("TRYAGAIN bucket is being moved; retry shortly"));
            assertThat(client.call("SET", "a", "1")).isEqualTo("OK");
        }
    }

    @Test
    void aWriteToAContainedDoubledCopyIsAReadonlyErrorNamingTheBucketWhileReadsWork() {
        backend.rejectWhen(op -> keyOf(op).startsWith("doubled") && !op.readOnly(),
                OpResult.error(ErrorCode.BUCKET_READONLY, "bucket 17 is a contained doubled copy"));
        server = new TestServer(backend);
        try (RawClient client = server.client()) {
            assertThat(client.call("SET", "doubled", "1")).isEqualTo(new Err("READONLY bucket 17 is a contained doubled copy"));
            assertThat(client.call("GET", "doubled")).isNull();
        }
    }

    @Test
    void backendFailingWithACatalogueErrorAnswersThatError() {
        KvBackend timingOut = new FixedFailureBackend(new CairnException(ErrorCode.TIMEOUT));
        server = new TestServer(timingOut);
        try (RawClient client = server.client()) {
            assertThat(client.call("GET", "k")).isEqualTo(new Err("TIMEOUT request deadline exceeded"));
            assertThat(client.call("DBSIZE")).isEqualTo(new Err("TIMEOUT request deadline exceeded"));
            assertThat(client.call("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void backendThrowingInsteadOfFailingTheFutureIsAnInternalError() {
        KvBackend throwing = new FixedFailureBackend(null);
        server = new TestServer(throwing);
        try (RawClient client = server.client()) {
            assertThat(client.call("SET", "k", "v"))
                    .isEqualTo(new Err("ERR internal error: java.lang.UnsupportedOperationException: broken"));
            assertThat(client.call("PING")).isEqualTo("PONG");
        }
    }

    private static String keyOf(KvOp op) {
        return new String(op.key(), StandardCharsets.UTF_8);
    }

    /** Fails every call: with {@code failure} as a failed future, or by throwing when it is null. */
    private record FixedFailureBackend(RuntimeException failure) implements KvBackend {
        @Override
        public CompletableFuture<List<OpResult>> execute(List<KvOp> ops) {
            if (failure == null) throw new UnsupportedOperationException("broken");
            return CompletableFuture.failedFuture(failure);
        }

        @Override
        public CompletableFuture<Long> dbSize() {
            return CompletableFuture.failedFuture(failure);
        }

        @Override
        public CompletableFuture<Long> exactKeyCount() {
            return CompletableFuture.failedFuture(failure);
        }

        @Override
        public CompletableFuture<List<byte[]>> keys(java.util.function.Predicate<byte[]> match, int maxKeys) {
            return CompletableFuture.failedFuture(failure);
        }

        @Override
        public CompletableFuture<Long> flushAll() {
            return CompletableFuture.failedFuture(failure);
        }

        @Override
        public CompletableFuture<ScanPage> scan(io.cairn.core.wire.KeyPage.Position from, int count) {
            return CompletableFuture.failedFuture(failure);
        }

        @Override
        public int bucketCount() {
            return 16;
        }

        @Override
        public Map<String, Map<String, String>> info() {
            return Map.of();
        }
    }
}
