package io.cairn.core;

import io.cairn.core.testing.SeededRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.zip.CRC32;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The key -> bucket mapping is part of the on-disk format: it must never change. */
@ExtendWith(SeededRandom.class)
class BucketHasherTest {
    private static int bucketOf(String key, int bucketCount) {
        return BucketHasher.bucketOf(key.getBytes(StandardCharsets.UTF_8), bucketCount);
    }

    /** The reference formula, computed here without BucketHasher. */
    private static int expected(String shardKey, int bucketCount) {
        return expected(shardKey.getBytes(StandardCharsets.UTF_8), bucketCount);
    }

    private static int expected(byte[] shardKey, int bucketCount) {
        CRC32 crc = new CRC32();
        crc.update(shardKey);
        return (int) (1 + crc.getValue() % bucketCount);
    }

    @Test
    void wellKnownCrc32VectorsGiveFixedBuckets() {
        // Published CRC-32 (IEEE) check values.
        assertThat(bucketOf("123456789", 3000)).isEqualTo(1 + (int) (0xCBF43926L % 3000)).isEqualTo(1263);
        assertThat(bucketOf("123456789", 16384)).isEqualTo(1 + (int) (0xCBF43926L % 16384)).isEqualTo(14631);
        assertThat(bucketOf("The quick brown fox jumps over the lazy dog", 3000))
                .isEqualTo(1 + (int) (0x414FA339L % 3000)).isEqualTo(170);
        assertThat(bucketOf("a", 3000)).isEqualTo(1 + (int) (0xE8B7BE43L % 3000)).isEqualTo(2908);
        assertThat(bucketOf("abc", 3000)).isEqualTo(1 + (int) (0x352441C2L % 3000)).isEqualTo(1579);
    }

    @Test
    void emptyKeyHashesToTheFirstBucket() {
        // crc32("") == 0
        assertThat(bucketOf("", 3000)).isEqualTo(1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"user1", "hello world", "key:123:profile", "ключ", "x"})
    void plainKeysMatchTheCrc32Formula(String key) {
        assertThat(bucketOf(key, 3000)).isEqualTo(expected(key, 3000));
        assertThat(bucketOf(key, 7)).isEqualTo(expected(key, 7));
    }

    @Test
    void binaryKeysUseUnsignedBytes() {
        byte[] key = {(byte) 0xFF, 0x00, (byte) 0x80, 0x7F, (byte) 0xC3};
        assertThat(BucketHasher.bucketOf(key, 3000)).isEqualTo(expected(key, 3000));
    }

    @Test
    void hashTagSelectsTheShardKey() {
        int user1 = bucketOf("user1", 3000);
        assertThat(bucketOf("{user1}.a", 3000)).isEqualTo(user1);
        assertThat(bucketOf("{user1}.b", 3000)).isEqualTo(user1);
        assertThat(bucketOf("profile:{user1}", 3000)).isEqualTo(user1);
        assertThat(bucketOf("a{user1}b", 3000)).isEqualTo(user1);
    }

    @Test
    void emptyHashTagHashesTheWholeKey() {
        assertThat(bucketOf("{}x", 3000)).isEqualTo(expected("{}x", 3000));
        // Like Redis Cluster: "{}" ends the search, a later tag does not count.
        assertThat(bucketOf("{}{user1}", 3000)).isEqualTo(expected("{}{user1}", 3000));
    }

    @ParameterizedTest
    @CsvSource({
            "a{b}c{d}e, b",
            "foo{bar}{zap}, bar",
            "{{bar}}, {bar",
            "foo{{bar}}zap, {bar",
            "}{tag}, tag",
    })
    void onlyTheFirstTagCounts(String key, String shardKey) {
        assertThat(bucketOf(key, 3000)).isEqualTo(expected(shardKey, 3000));
    }

    @ParameterizedTest
    @ValueSource(strings = {"{user1", "user1}", "}user1{", "{", "}", "{{", "a{b"})
    void unbalancedBracesHashTheWholeKey(String key) {
        assertThat(bucketOf(key, 3000)).isEqualTo(expected(key, 3000));
    }

    @Test
    void bucketIsAlwaysBetweenOneAndBucketCount(Random random) {
        int[] counts = {1, 2, 3, 7, 3000, 16384, Integer.MAX_VALUE};
        for (int i = 0; i < 20_000; i++) {
            byte[] key = new byte[random.nextInt(40)];
            random.nextBytes(key);
            int bucketCount = counts[random.nextInt(counts.length)];
            int bucket = BucketHasher.bucketOf(key, bucketCount);
            assertThat(bucket).isBetween(1, bucketCount);
        }
    }

    @Test
    void everyBucketIsReachable(Random random) {
        boolean[] seen = new boolean[17];
        for (int i = 0; i < 5_000; i++) {
            seen[BucketHasher.bucketOf(("k" + random.nextLong()).getBytes(StandardCharsets.UTF_8), 16)] = true;
        }
        for (int b = 1; b <= 16; b++) assertThat(seen[b]).as("bucket %d", b).isTrue();
    }

    @Test
    void singleBucketTakesEveryKey() {
        assertThat(bucketOf("anything", 1)).isEqualTo(1);
        assertThat(bucketOf("{tag}", 1)).isEqualTo(1);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, Integer.MIN_VALUE})
    void nonPositiveBucketCountIsRejected(int bucketCount) {
        assertThatThrownBy(() -> bucketOf("k", bucketCount)).isInstanceOf(IllegalArgumentException.class);
    }
}
