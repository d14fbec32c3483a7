package io.cairn.router.resp;

import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;
import io.cairn.core.wire.KeyPage;
import io.cairn.router.KvBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * MULTI, EXEC and DISCARD: replies compared with a real redis-server for transactions within one
 * bucket (hash-tagged keys), every queued command's operations sent in one backend call, and the
 * Cluster-style refusal of a transaction that spans buckets.
 */
class TransactionsTest {
    private static final String[][] SCRIPT = {
            {"exec"}, {"discard"}, {"multi"}, {"multi"}, {"discard"},
            {"multi"}, {"set", "{u}a", "1"}, {"incr", "{u}a"}, {"get", "{u}a"}, {"strlen", "{u}a"}, {"exec"},
            {"multi"}, {"set", "{u}s", "x"}, {"incr", "{u}s"}, {"append", "{u}s", "y"}, {"exec"}, {"get", "{u}s"},
            {"multi"}, {"set", "{u}b", "1"}, {"nosuchcommand"}, {"exec"}, {"exists", "{u}b"},
            {"multi"}, {"set", "{u}b", "1"}, {"get"}, {"exec"}, {"exists", "{u}b"},
            {"multi"}, {"set", "{u}c", "1"}, {"discard"}, {"exists", "{u}c"}, {"exec"},
            {"multi"}, {"exec"},
            {"multi"}, {"ping"}, {"mset", "{u}m1", "1", "{u}m2", "2"}, {"mget", "{u}m1", "{u}m2"}, {"del", "{u}m1", "{u}m2"}, {"exec"},
            {"unwatch"},
            {"watch", "{u}w"}, {"multi"}, {"watch", "{u}w"}, {"set", "{u}w", "1"}, {"exec"}, {"get", "{u}w"},
            {"watch", "{u}w"}, {"unwatch"}, {"multi"}, {"incr", "{u}w"}, {"exec"},
            {"watch", "{u}w"}, {"multi"}, {"incr", "{u}w"}, {"discard"}, {"get", "{u}w"},
    };

    private TestServer cairn;

    @AfterEach
    void stop() {
        if (cairn != null) cairn.close();
    }

    @Test
    void transactionsInOneBucketAnswerAsRedisServerDoes() throws Exception {
        assertThat(RedisServerComparison.againstInMemoryCairn(SCRIPT)).isEmpty();
    }

    @Test
    void execSendsEveryQueuedOperationInOneCall() {
        CountingBackend backend = new CountingBackend(new InMemoryKvBackend());
        cairn = new TestServer(backend);
        try (RawClient c = new RawClient(cairn.port())) {
            c.call("multi");
            c.call("set", "{t}a", "1");
            c.call("incrby", "{t}a", "5");
            c.call("mset", "{t}b", "2", "{t}c", "3");
            c.call("getrange", "{t}b", "0", "0");
            int before = backend.calls.get();
            Object replies = c.call("exec");
            assertThat(backend.calls.get() - before).as("one backend call for the whole transaction").isEqualTo(1);
            assertThat(backend.lastOps).isEqualTo(5);
            assertThat(replies).isEqualTo(List.of("OK", 6L, "OK", "2"));
        }
    }

    @Test
    void aTransactionSpanningBucketsIsRefusedAndNothingApplies() {
        cairn = new TestServer(new InMemoryKvBackend());
        try (RawClient c = new RawClient(cairn.port())) {
            c.call("multi");
            assertThat(c.call("set", "{x}a", "1")).isEqualTo("QUEUED");
            assertThat(c.call("set", "{y}a", "1")).isEqualTo(new RawClient.Err("CROSSSLOT Keys in request don't hash to the same slot"));
            assertThat(c.call("exec")).isEqualTo(new RawClient.Err("EXECABORT Transaction discarded because of previous errors."));
            assertThat(c.call("exists", "{x}a")).isEqualTo(0L);
            c.call("multi");
            assertThat(c.call("dbsize")).isEqualTo("QUEUED");
            assertThat(c.call("exec")).isEqualTo(List.of(new RawClient.Err("ERR DBSIZE inside MULTI is not supported by Cairn")));
            assertThat(c.call("watch", "{x}a", "{y}a")).isEqualTo(new RawClient.Err("CROSSSLOT Keys in request don't hash to the same slot"));
            // keys after numkeys (LMPOP numkeys ...) are checked when queued too, as Redis Cluster does: nothing is sent
            c.call("multi");
            c.call("rpush", "{x}l", "a");
            assertThat(c.call("lmpop", "1", "{y}l", "left")).isEqualTo(new RawClient.Err("CROSSSLOT Keys in request don't hash to the same slot"));
            assertThat(c.call("exec")).isEqualTo(new RawClient.Err("EXECABORT Transaction discarded because of previous errors."));
            assertThat(c.call("exists", "{x}l")).as("nothing applied").isEqualTo(0L);
            c.call("multi");
            assertThat(c.call("blpop", "{x}l", "1")).isEqualTo(new RawClient.Err("ERR BLPOP inside MULTI is not supported by Cairn"));
            assertThat(c.call("exec")).isEqualTo(new RawClient.Err("EXECABORT Transaction discarded because of previous errors."));
        }
    }

    /** A write by another client to the watched bucket between WATCH and EXEC: EXEC answers nil and applies nothing. */
    @Test
    void aWriteToTheWatchedBucketAbortsExec() {
        cairn = new TestServer(new InMemoryKvBackend());
        try (RawClient c = new RawClient(cairn.port()); RawClient other = new RawClient(cairn.port())) {
            assertThat(c.call("watch", "{w}balance")).isEqualTo("OK");
            c.call("multi");
            c.call("incrby", "{w}balance", "10");
            c.call("set", "{w}log", "paid");
            assertThat(other.call("set", "{w}balance", "100")).isEqualTo("OK");
            assertThat(c.call("exec")).as("aborted").isNull();
            assertThat(c.call("get", "{w}balance")).isEqualTo("100");
            assertThat(c.call("exists", "{w}log")).isEqualTo(0L);

            assertThat(c.call("watch", "{w}balance")).isEqualTo("OK");
            c.call("multi");
            c.call("incrby", "{w}balance", "10");
            assertThat(c.call("exec")).as("nothing written since WATCH").isEqualTo(List.of(110L));
        }
    }



    /** Counts the calls that reach the cluster and the size of the last. */
    private static final class CountingBackend implements KvBackend {
        final AtomicInteger calls = new AtomicInteger();
        volatile int lastOps;
        private final KvBackend inner;

        CountingBackend(KvBackend inner) {
            this.inner = inner;
        }

        @Override
        public CompletableFuture<List<OpResult>> execute(List<KvOp> ops) {
            calls.incrementAndGet();
            lastOps = ops.size();
            return inner.execute(ops);
        }

        @Override
        public CompletableFuture<Long> dbSize() {
            return inner.dbSize();
        }

        @Override
        public CompletableFuture<Long> exactKeyCount() {
            return inner.exactKeyCount();
        }

        @Override
        public CompletableFuture<List<byte[]>> keys(Predicate<byte[]> match, int maxKeys) {
            return inner.keys(match, maxKeys);
        }

        @Override
        public CompletableFuture<Long> flushAll() {
            return inner.flushAll();
        }

        @Override
        public CompletableFuture<ScanPage> scan(KeyPage.Position from, int count) {
            return inner.scan(from, count);
        }

        @Override
        public int bucketCount() {
            return inner.bucketCount();
        }

        @Override
        public Map<String, Map<String, String>> info() {
            return inner.info();
        }
    }
}
