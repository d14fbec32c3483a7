package io.cairn.router.resp;

import io.cairn.core.BucketHasher;
import io.cairn.core.kv.KvOp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Multi-key commands reach the backend as one call, so same-bucket keys change atomically. */
class MultiKeyCommandsTest {
    private final ScriptedBackend backend = new ScriptedBackend(new InMemoryKvBackend(64, 1024));
    private TestServer server;
    private RawClient client;

    @BeforeEach
    void start() {
        server = new TestServer(backend);
        client = server.client();
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
        backend.close();
    }

    @Test
    void msetSendsEveryPairInOneCallWithEachKeysBucket() {
        List<String> args = new ArrayList<>(List.of("MSET"));
        for (int i = 0; i < 100; i++) args.addAll(List.of("k" + i, "v" + i));
        long before = backend.calls();
        assertThat(client.call(args.toArray(String[]::new))).isEqualTo("OK");
        assertThat(backend.calls() - before).isEqualTo(1);
        List<KvOp> ops = backend.lastCall();
        assertThat(ops).hasSize(100).allMatch(op -> op.type() == KvOp.Type.SET);
        for (int i = 0; i < 100; i++) {
            byte[] key = ("k" + i).getBytes(StandardCharsets.UTF_8);
            assertThat(ops.get(i).key()).isEqualTo(key);
            assertThat(ops.get(i).bucket()).isEqualTo(BucketHasher.bucketOf(key, 64));
        }
    }

    @Test
    void mgetDelAndExistsEachSendOneCallWithDuplicatesKept() {
        assertOneCall(KvOp.Type.GET, 3, "MGET", "a", "b", "a");
        assertOneCall(KvOp.Type.EXISTS, 4, "EXISTS", "a", "b", "a", "c");
        assertOneCall(KvOp.Type.DEL, 2, "DEL", "a", "b");
        assertOneCall(KvOp.Type.DEL, 2, "UNLINK", "a", "b");
    }

    @Test
    void hashTaggedKeysShareABucket() {
        client.call("MSET", "{user:1}:name", "ann", "{user:1}:email", "ann@example.com");
        List<KvOp> ops = backend.lastCall();
        assertThat(ops.get(0).bucket()).isEqualTo(ops.get(1).bucket());
    }

    @Test
    void setOptionsBecomeKvOpFlags() {
        client.call("SET", "k", "v", "NX", "GET", "PX", "1500");
        KvOp op = backend.lastCall().get(0);
        assertThat(op.has(KvOp.FLAG_NX)).isTrue();
        assertThat(op.has(KvOp.FLAG_GET)).isTrue();
        assertThat(op.has(KvOp.FLAG_EXPIRE_REL)).isTrue();
        assertThat(op.arg()).isEqualTo(1500);
        client.call("SET", "k", "v", "EXAT", "2000000000");
        op = backend.lastCall().get(0);
        assertThat(op.has(KvOp.FLAG_EXPIRE_ABS)).isTrue();
        assertThat(op.arg()).isEqualTo(2_000_000_000_000L);
    }

    private void assertOneCall(KvOp.Type type, int opCount, String... command) {
        long before = backend.calls();
        client.call(command);
        assertThat(backend.calls() - before).as(command[0]).isEqualTo(1);
        assertThat(backend.lastCall()).hasSize(opCount).allMatch(op -> op.type() == type);
    }
}
