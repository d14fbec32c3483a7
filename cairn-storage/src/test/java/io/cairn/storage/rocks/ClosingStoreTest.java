package io.cairn.storage.rocks;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.WriteBatch;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A member installing a snapshot closes its database while other threads read it (a timer asking for
 * the disk on record, admin statistics, follower reads): three chaos runs died of a read that touched
 * the closed database's freed memory (SIGSEGV in RocksDB). Reads racing the close now either finish
 * before it or fail with a StorageFailure, and the process lives.
 */
class ClosingStoreTest {
    private static final int KEYS = 5_000;

    @TempDir
    Path dir;

    @Test
    @Timeout(60)
    void readsRacingTheCloseFinishBeforeItOrFailCleanly() throws Exception {
        RocksStore store = new RocksStore(dir.resolve("db"));
        try (WriteBatch batch = new WriteBatch()) {
            for (int i = 0; i < KEYS; i++) batch.put(store.data, key(i), key(i));
            store.write(batch);
        }
        StoreIterator heldOpen = store.newIterator(store.data);
        heldOpen.seek(key(0));

        Map<String, Throwable> endedBy = new ConcurrentHashMap<>();
        AtomicLong reads = new AtomicLong();
        List<Thread> readers = new ArrayList<>();
        readers.add(reader("get", endedBy, reads, i -> assertThat(store.get(store.data, key(i % KEYS))).isNotNull()));
        readers.add(reader("scan", endedBy, reads, i -> {
            try (StoreIterator it = store.newIterator(store.data)) {
                int n = 0;
                for (it.seek(key(i % KEYS)); it.isValid() && n < 50; it.next()) {
                    it.key();
                    it.value();
                    n++;
                }
            }
        }));
        readers.add(reader("snapshot", endedBy, reads, i -> store.consistent(o -> store.get(store.data, key(i % KEYS), o))));
        readers.forEach(Thread::start);
        await().atMost(20, TimeUnit.SECONDS).until(() -> reads.get() > 3_000);

        store.close();
        for (Thread t : readers) t.join(10_000);

        assertThat(endedBy).containsOnlyKeys("get", "scan", "snapshot");
        assertThat(endedBy.values()).allSatisfy(e -> assertThat(e).isInstanceOf(RocksStore.StorageFailure.class).hasMessageContaining("closed"));
        assertThatThrownBy(heldOpen::next).isInstanceOf(RocksStore.StorageFailure.class);
        heldOpen.close(); // freed by the store's close already: a no-op
        assertThatThrownBy(() -> store.newIterator(store.data)).isInstanceOf(RocksStore.StorageFailure.class);
    }

    /** A thread that reads until a read throws, and records what ended it. */
    private static Thread reader(String name, Map<String, Throwable> endedBy, AtomicLong reads, Consumer<Integer> read) {
        return new Thread(() -> {
            for (int i = 0; ; i++) {
                try {
                    read.accept(i);
                    reads.incrementAndGet();
                } catch (Throwable e) {
                    endedBy.put(name, e);
                    return;
                }
            }
        }, "reader-" + name);
    }

    private static byte[] key(int i) {
        return RocksStore.dataKey(1 + i % 7, ("k" + i).getBytes(StandardCharsets.US_ASCII));
    }
}
