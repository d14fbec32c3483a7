package io.cairn.archive;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The one behaviour every {@link ObjectStore} has: run on the real folder store and on a real S3
 * server (s3proxy on loopback). Each test writes under its own prefix, so a store may be shared.
 */
abstract class ObjectStoreContract {
    protected abstract ObjectStore store();

    private String prefix;

    @BeforeEach
    void prefixPerTest(TestInfo info) {
        prefix = "contract/" + info.getTestMethod().orElseThrow().getName() + "-" + System.nanoTime();
    }

    private String key(String name) {
        return prefix + "/" + name;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] readAll(InputStream in) throws IOException {
        try (in) {
            return in.readAllBytes();
        }
    }

    @Test
    void putThenGetReturnsTheBytesAndHeadTheSizeAndMetadata() throws IOException {
        store().put(key("a"), ObjectBody.of(bytes("hello archive")), Map.of("cairn-bucket", "17", "cairn-sha256", "abc"));
        assertThat(readAll(store().get(key("a")))).isEqualTo(bytes("hello archive"));
        ObjectInfo info = store().head(key("a")).orElseThrow();
        assertThat(info.sizeBytes()).isEqualTo(13);
        assertThat(info.metadata()).containsEntry("cairn-bucket", "17").containsEntry("cairn-sha256", "abc");
    }

    @Test
    void putFromAFileStreamsItsBytes(@org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
        byte[] data = new byte[3 * 1024 * 1024 + 17];
        new Random(42).nextBytes(data);
        Path file = dir.resolve("body");
        Files.write(file, data);
        store().put(key("big"), ObjectBody.of(file), Map.of());
        assertThat(store().head(key("big")).orElseThrow().sizeBytes()).isEqualTo(data.length);
        assertThat(readAll(store().get(key("big")))).isEqualTo(data);
    }

    @Test
    void putReplacesAnExistingObjectAndItsMetadata() throws IOException {
        store().put(key("a"), ObjectBody.of(bytes("one")), Map.of("v", "1"));
        store().put(key("a"), ObjectBody.of(bytes("second")), Map.of("v", "2"));
        assertThat(readAll(store().get(key("a")))).isEqualTo(bytes("second"));
        assertThat(store().head(key("a")).orElseThrow().metadata()).containsEntry("v", "2");
    }

    @Test
    void putIfAbsentWritesOnceAndRefusesTheSecondWriter() throws IOException {
        assertThat(store().putIfAbsent(key("once"), ObjectBody.of(bytes("first")), Map.of("w", "1"))).isTrue();
        assertThat(store().putIfAbsent(key("once"), ObjectBody.of(bytes("other")), Map.of("w", "2"))).isFalse();
        assertThat(readAll(store().get(key("once")))).isEqualTo(bytes("first"));
        assertThat(store().head(key("once")).orElseThrow().metadata()).containsEntry("w", "1");
    }

    @Test
    void concurrentPutIfAbsentHasExactlyOneWinner() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Callable<Boolean>> writers = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                byte[] body = bytes("writer-" + i);
                writers.add(() -> store().putIfAbsent(key("race"), ObjectBody.of(body), Map.of()));
            }
            int winners = 0;
            for (Future<Boolean> f : pool.invokeAll(writers)) if (f.get()) winners++;
            assertThat(winners).isEqualTo(1);
            assertThat(new String(readAll(store().get(key("race"))), StandardCharsets.UTF_8)).startsWith("writer-");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void rangedGetReturnsTheSliceAndClampsAtTheEnd() throws IOException {
        store().put(key("r"), ObjectBody.of(bytes("0123456789")), Map.of());
        assertThat(readAll(store().get(key("r"), 3, 4))).isEqualTo(bytes("3456"));
        assertThat(readAll(store().get(key("r"), 8, 100))).isEqualTo(bytes("89"));
        assertThat(readAll(store().get(key("r"), 0, 0))).isEmpty();
        assertThat(readAll(store().get(key("r"), 10, 5))).isEmpty();
    }

    @Test
    void missingObjectsAreAbsentForHeadAndNotFoundForGetAndCopy() {
        assertThat(store().head(key("nothing"))).isEqualTo(Optional.empty());
        assertThatThrownBy(() -> store().get(key("nothing")).close())
                .isInstanceOfSatisfying(CairnException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.OBJECT_NOT_FOUND));
        assertThatThrownBy(() -> store().get(key("nothing"), 1, 2).close())
                .isInstanceOfSatisfying(CairnException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.OBJECT_NOT_FOUND));
        assertThatThrownBy(() -> store().copy(key("nothing"), key("there")))
                .isInstanceOfSatisfying(CairnException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.OBJECT_NOT_FOUND));
        assertThat(store().head(key("there"))).isEmpty();
    }

    @Test
    void copyDuplicatesBytesAndMetadataAndLeavesTheSource() throws IOException {
        store().put(key("src/obj"), ObjectBody.of(bytes("payload")), Map.of("cairn-generation", "4"));
        store().copy(key("src/obj"), key("dst/obj"));
        assertThat(readAll(store().get(key("dst/obj")))).isEqualTo(bytes("payload"));
        assertThat(store().head(key("dst/obj")).orElseThrow().metadata()).containsEntry("cairn-generation", "4");
        assertThat(store().head(key("src/obj"))).isPresent();
        store().delete(key("src/obj"));
        assertThat(readAll(store().get(key("dst/obj")))).as("the copy outlives its source").isEqualTo(bytes("payload"));
    }

    @Test
    void deleteRemovesTheObjectAndIsIdempotent() {
        store().put(key("d"), ObjectBody.of(bytes("x")), Map.of());
        store().delete(key("d"));
        assertThat(store().head(key("d"))).isEmpty();
        store().delete(key("d"));
        assertThat(store().putIfAbsent(key("d"), ObjectBody.of(bytes("y")), Map.of())).as("the key is free again").isTrue();
    }

    @Test
    void listPagesThroughExactlyThePrefixInKeyOrder() {
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 23; i++) {
            String k = key(String.format("buckets/%d/%03d-h", i % 3, i));
            store().put(k, ObjectBody.of(bytes("v" + i)), Map.of());
            expected.add(k);
        }
        store().put(key("bucketsX/other"), ObjectBody.of(bytes("no")), Map.of());
        store().put(prefix + "-sibling/obj", ObjectBody.of(bytes("no")), Map.of());
        expected.sort(null);

        List<String> seen = new ArrayList<>();
        String token = null;
        int pages = 0;
        do {
            ObjectPage page = store().list(prefix + "/buckets/", token, 5);
            assertThat(page.objects()).hasSizeLessThanOrEqualTo(5);
            page.objects().forEach(o -> {
                seen.add(o.key());
                assertThat(o.sizeBytes()).isPositive();
            });
            token = page.nextPageToken().orElse(null);
            pages++;
        } while (token != null && pages < 20);
        assertThat(seen).containsExactlyElementsOf(expected);
        assertThat(pages).isBetween(5, 6);
        assertThat(store().list(prefix + "/nothing-here/", null, 10).objects()).isEmpty();
    }

    /** The sweeper's age guard reads it: when the object was written, or copied (a copy is a new object). */
    @Test
    void headAndListTellWhenAnObjectWasWrittenOrCopied() {
        long slackMs = 5_000; // file systems and S3 keep seconds; clocks of a store and its client differ a little
        long before = System.currentTimeMillis();
        store().put(key("old"), ObjectBody.of(bytes("x")), Map.of());
        long written = store().head(key("old")).orElseThrow().lastModifiedMs();
        assertThat(written).isBetween(before - slackMs, System.currentTimeMillis() + slackMs);
        assertThat(store().list(prefix + "/", null, 10).objects()).extracting(ObjectInfo::lastModifiedMs).containsExactly(written);
        long copiedAt = System.currentTimeMillis();
        store().copy(key("old"), key("new"));
        assertThat(store().head(key("new")).orElseThrow().lastModifiedMs()).isGreaterThanOrEqualTo(copiedAt - slackMs);
    }

    @Test
    void badKeysAndMetadataAreRefusedWithAClearCode() {
        for (String bad : List.of("", "/abs", "a//b", "a/../b", "trailing/", "a/./b")) {
            assertThatThrownBy(() -> store().put(bad, ObjectBody.of(bytes("x")), Map.of()))
                    .as(bad).isInstanceOfSatisfying(CairnException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.OBJECT_STORE_REFUSED));
        }
        assertThatThrownBy(() -> store().put(key("m"), ObjectBody.of(bytes("x")), Map.of("Upper", "1")))
                .isInstanceOfSatisfying(CairnException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.OBJECT_STORE_REFUSED));
        assertThatThrownBy(() -> store().list(prefix, null, 0))
                .isInstanceOfSatisfying(CairnException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.OBJECT_STORE_REFUSED));
        assertThat(store().head(key("m"))).as("a refused put writes nothing").isEmpty();
    }

    @Test
    void emptyObjectsAreObjects() throws IOException {
        store().put(key("empty"), ObjectBody.of(new byte[0]), Map.of());
        assertThat(store().head(key("empty")).orElseThrow().sizeBytes()).isZero();
        assertThat(readAll(store().get(key("empty")))).isEmpty();
    }
}
