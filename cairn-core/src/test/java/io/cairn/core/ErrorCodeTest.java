package io.cairn.core;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Codes travel on the wire and are stored in logs: they are stable and never reused. */
class ErrorCodeTest {
    @Test
    void codesAreUniqueAndPositive() {
        int[] codes = Arrays.stream(ErrorCode.values()).mapToInt(c -> c.code).toArray();
        assertThat(codes).doesNotHaveDuplicates();
        assertThat(Arrays.stream(codes).min().orElseThrow()).isPositive();
    }

    @Test
    void publishedCodesKeepTheirNumbers() {
        Map<ErrorCode, Integer> published = new LinkedHashMap<>();
        published.put(ErrorCode.WRONG_BUCKET, 1);
        published.put(ErrorCode.BUCKET_LOCKED, 2);
        published.put(ErrorCode.NO_ROUTE, 3);
        published.put(ErrorCode.NOT_LEADER, 4);
        published.put(ErrorCode.TIMEOUT, 5);
        published.put(ErrorCode.UNAVAILABLE, 6);
        published.put(ErrorCode.VALUE_TOO_LARGE, 7);
        published.put(ErrorCode.NOT_INTEGER, 8);
        published.put(ErrorCode.SYNTAX, 9);
        published.put(ErrorCode.WRONG_ARITY, 10);
        published.put(ErrorCode.UNKNOWN_COMMAND, 11);
        published.put(ErrorCode.PROTOCOL, 12);
        published.put(ErrorCode.ILLEGAL_TRANSITION, 13);
        published.put(ErrorCode.INVALID_CONFIG, 14);
        published.put(ErrorCode.UNKNOWN_NODE, 15);
        published.put(ErrorCode.STALE_EPOCH, 16);
        published.put(ErrorCode.GUARDRAIL, 17);
        published.put(ErrorCode.BUCKET_READONLY, 18);
        published.put(ErrorCode.KEY_TOO_LARGE, 19);
        published.put(ErrorCode.INVALID_EXPIRE, 20);
        published.put(ErrorCode.INTERNAL, 21);
        published.put(ErrorCode.OBJECT_NOT_FOUND, 30);
        published.put(ErrorCode.OBJECT_STORE_UNAVAILABLE, 31);
        published.put(ErrorCode.OBJECT_STORE_REFUSED, 32);
        published.put(ErrorCode.ARCHIVE_CORRUPT, 33);
        published.put(ErrorCode.WRONG_TYPE, 34);
        published.put(ErrorCode.NOT_FLOAT, 35);
        published.put(ErrorCode.NO_SUCH_KEY, 36);
        published.put(ErrorCode.INDEX_OUT_OF_RANGE, 37);
        published.put(ErrorCode.CROSS_SLOT, 38);
        published.put(ErrorCode.BUCKET_RESTORING, 45);
        published.put(ErrorCode.RESTORE_QUEUE_FULL, 46);
        published.put(ErrorCode.AUTH_RATE_LIMITED, 39);
        published.forEach((c, n) -> assertThat(c.code).as(c.name()).isEqualTo(n));
    }

    @Test
    void newCodesAreAddedAfterThePublishedOnes() {
        ErrorCode[] all = ErrorCode.values();
        for (int i = 21; i < all.length; i++) assertThat(all[i].code).as(all[i].name()).isGreaterThan(21);
    }

    @ParameterizedTest
    @EnumSource(ErrorCode.class)
    void ofCodeRoundTrips(ErrorCode code) {
        assertThat(ErrorCode.ofCode(code.code)).isSameAs(code);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, 9999, Integer.MAX_VALUE, Integer.MIN_VALUE})
    void unknownCodeMapsToInternal(int code) {
        assertThat(ErrorCode.ofCode(code)).isEqualTo(ErrorCode.INTERNAL);
    }

    @Test
    void retryClassesLetARouterHealItself() {
        assertThat(ErrorCode.WRONG_BUCKET.retry).isEqualTo(RetryClass.REROUTE);
        assertThat(ErrorCode.NOT_LEADER.retry).isEqualTo(RetryClass.REROUTE);
        assertThat(ErrorCode.BUCKET_LOCKED.retry).isEqualTo(RetryClass.RETRY_LATER);
        assertThat(ErrorCode.STALE_EPOCH.retry).isEqualTo(RetryClass.REFRESH_TOPOLOGY);
        assertThat(ErrorCode.VALUE_TOO_LARGE.retry).isEqualTo(RetryClass.FATAL);
    }

    @ParameterizedTest
    @EnumSource(ErrorCode.class)
    void everyCodeHasARedisPrefixAndDescription(ErrorCode code) {
        assertThat(code.redisPrefix).isNotBlank().doesNotContain(" ").isUpperCase();
        assertThat(code.description).isNotBlank();
    }

    @Test
    void exceptionCarriesCodeAndRedisMessage() {
        CairnException e = new CairnException(ErrorCode.WRONG_BUCKET, "bucket 7 is on rs2");
        assertThat(e.code()).isEqualTo(ErrorCode.WRONG_BUCKET);
        assertThat(e.redisMessage()).isEqualTo("WRONGBUCKET bucket 7 is on rs2");
        assertThat(new CairnException(ErrorCode.SYNTAX).getMessage()).isEqualTo(ErrorCode.SYNTAX.description);
        assertThat(e.getStackTrace()).isEmpty();
    }
}
