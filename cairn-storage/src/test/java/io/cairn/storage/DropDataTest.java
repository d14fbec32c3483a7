package io.cairn.storage;

import io.cairn.core.kv.KvOp;
import io.cairn.core.move.MoveCommand;
import io.cairn.core.wire.StorageRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A bucket that moved away is deleted key by key when small, with one range tombstone when large; either way all of it, counted exactly. */
class DropDataTest {
    @TempDir
    Path dir;

    private ReplicaUnderTest replica;

    @BeforeEach
    void open() throws IOException {
        replica = ReplicaUnderTest.bootstrapped(dir.resolve("db"), 10);
    }

    @AfterEach
    void close() {
        replica.close();
    }

    @Test
    void aSmallBucketIsDeletedKeyByKey() {
        write(3, 300);
        write(4, 5);
        drop(3);

        assertThat(replica.store.countKeys(3)).isZero();
        assertThat(replica.store.countKeys(4)).isEqualTo(5);
        assertThat(replica.state.keyCount()).isEqualTo(5);
        assertThat(replica.store.pointDeletionsInMemtable()).isEqualTo(300);
    }

    @Test
    void aBucketAboveTheLimitTakesOneRangeTombstone() {
        write(3, BatchView.POINT_DELETE_MAX_KEYS + 1);
        write(4, 5);
        drop(3);

        assertThat(replica.store.countKeys(3)).isZero();
        assertThat(replica.state.keyCount()).isEqualTo(5);
        assertThat(replica.store.pointDeletionsInMemtable()).isZero();
    }

    @Test
    void flushAllStillTakesRangeTombstones() {
        write(3, 10);
        write(4, 10);
        long refId = 9;
        replica.apply(StorageRequest.ref(refId, 60_000), 2_000);
        replica.apply(StorageRequest.flush(refId), 2_100);

        assertThat(replica.state.keyCount()).isZero();
        assertThat(replica.store.countKeys(3)).isZero();
        assertThat(replica.store.pointDeletionsInMemtable()).isZero();
    }

    private void write(int bucket, int keys) {
        List<KvOp> ops = new ArrayList<>();
        for (int i = 0; i < keys; i++) ops.add(KvOp.set(bucket, ("k" + i).getBytes(StandardCharsets.UTF_8), new byte[] {'v'}));
        replica.apply(StorageRequest.write(ops), 1_500);
    }

    private void drop(int bucket) {
        long generation = replica.move(new MoveCommand.StartSend(bucket, "rs2"), 2_000).record().generation();
        replica.move(new MoveCommand.MarkSent(bucket, generation), 2_100);
        assertThat(replica.move(new MoveCommand.DropData(bucket, generation), 2_200).isOk()).isTrue();
    }
}
