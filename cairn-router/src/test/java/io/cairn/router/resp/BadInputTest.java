package io.cairn.router.resp;

import io.cairn.router.resp.RawClient.Err;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bad input costs the sender a clear error and, for broken framing, its connection; it never
 * loses data or disturbs other clients. Limits are small here so tests stay small.
 */
class BadInputTest {
    private static final int MAX_KEY_BYTES = 128;
    private static final int MAX_VALUE_BYTES = 1024;
    private static final int MAX_BULK_BYTES = 64 * 1024;

    private TestServer server;

    @BeforeEach
    void start() {
        server = new TestServer(new InMemoryKvBackend(16, MAX_VALUE_BYTES), RespConfig.builder()
                .maxKeyBytes(MAX_KEY_BYTES).maxValueBytes(MAX_VALUE_BYTES).maxBulkBytes(MAX_BULK_BYTES)
                .maxRequestBytes(3 * MAX_BULK_BYTES).maxArgs(100).maxInlineBytes(1024));
        try (RawClient client = server.client()) {
            assertThat(client.call("SET", "precious", "data")).isEqualTo("OK");
        }
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void malformedBulkLengthIsAProtocolErrorThatClosesTheConnection() {
        assertProtocolError("*2\r\n$3\r\nGET\r\n$1x\r\n", "ERR Protocol error: invalid bulk length");
    }

    @Test
    void malformedArgumentCountIsAProtocolError() {
        assertProtocolError("*two\r\n$3\r\nGET\r\n", "ERR Protocol error: invalid multibulk length");
    }

    @Test
    void bulkWithoutItsLineEndIsAProtocolError() {
        assertProtocolError("*1\r\n$4\r\nPINGxx", "ERR Protocol error: expected CR LF after a bulk string of 4 bytes");
    }

    @Test
    void lengthLineWithoutItsEndIsAProtocolError() {
        assertProtocolError("*1\r\n$" + "1".repeat(40), "ERR Protocol error: invalid bulk length");
    }

    @Test
    void nonBulkArgumentIsAProtocolError() {
        assertProtocolError("*2\r\n$3\r\nGET\r\n:5\r\n", "ERR Protocol error: expected '$', got ':'");
    }

    @Test
    void negativeBulkLengthIsAProtocolError() {
        assertProtocolError("*2\r\n$3\r\nGET\r\n$-5\r\ngarbage\r\n", "ERR Protocol error: invalid bulk length");
    }

    @Test
    void nullBulkInsideARequestIsAProtocolError() {
        assertProtocolError("*2\r\n$3\r\nGET\r\n$-1\r\n", "ERR Protocol error: invalid bulk length");
    }

    @Test
    void bulkLongerThanTheProtocolLimitIsAProtocolError() {
        assertProtocolError("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + (MAX_BULK_BYTES + 1) + "\r\n",
                "ERR Protocol error: invalid bulk length");
    }

    @Test
    void bulkLengthBeyondAnyIntegerSizeIsAProtocolError() {
        assertProtocolError("*2\r\n$3\r\nGET\r\n$9999999999999999999\r\n", // 19 digits: more than a long holds
                "ERR Protocol error: invalid bulk length");
    }

    @Test
    void tooManyArgumentsIsAProtocolError() {
        assertProtocolError("*101\r\n", "ERR Protocol error: invalid multibulk length");
    }

    @Test
    void nestedArrayIsAProtocolError() {
        assertProtocolError("*1\r\n*1\r\n$4\r\nPING\r\n", "ERR Protocol error: expected '$', got '*'");
    }

    @Test
    void bareBulkStringIsAProtocolError() {
        assertProtocolError("$4\r\nPING\r\n", "ERR Protocol error: expected '*', got '$'");
    }

    @Test
    void overlongInlineCommandIsAProtocolError() {
        assertProtocolError("A".repeat(2000), "ERR Protocol error: too big inline request");
    }

    @Test
    void completeInlineLineOverTheLimitIsAProtocolError() {
        assertProtocolError("ECHO " + "A".repeat(1100) + "\r\n", "ERR Protocol error: too big inline request");
    }

    @Test
    void requestLargerThanTheLimitIsAProtocolError() {
        String big = "x".repeat(MAX_BULK_BYTES);
        byte[] request = RawClient.encode("MSET", "a", big, "b", big, "c", big, "d", big);
        try (RawClient client = server.client()) {
            client.send(request);
            assertThat(client.read()).isEqualTo(
                    new Err("ERR Protocol error: request exceeds the configured maximum of 196608 bytes"));
            assertThat(client.closedByServer()).isTrue();
        }
        assertServerStillServesWithDataIntact();
    }

    @Test
    void commandsBeforeTheMalformedOneAreStillAnswered() {
        try (RawClient client = server.client()) {
            client.send(new String(RawClient.encode("PING")) + new String(RawClient.encode("SET", "a", "1"))
                    + "*1\r\n:1\r\n" + new String(RawClient.encode("SET", "b", "2")));
            assertThat(client.read()).isEqualTo("PONG");
            assertThat(client.read()).isEqualTo("OK");
            assertThat(client.read()).isEqualTo(new Err("ERR Protocol error: expected '$', got ':'"));
            assertThat(client.closedByServer()).isTrue();
        }
        try (RawClient other = server.client()) {
            assertThat(other.call("GET", "a")).isEqualTo("1");
            assertThat(other.call("EXISTS", "b")).as("commands after the error are dropped").isEqualTo(0L);
        }
    }

    @Test
    void unknownCommandWrongArityAndNonIntegerIncrKeepTheConnectionOpen() {
        try (RawClient client = server.client()) {
            assertThat(client.call("NOPE", "x"))
                    .isEqualTo(new Err("ERR unknown command 'NOPE', with args beginning with: 'x' "));
            assertThat(client.call("GET", "a", "b"))
                    .isEqualTo(new Err("ERR wrong number of arguments for 'get' command"));
            assertThat(client.call("INCR", "precious"))
                    .isEqualTo(new Err("ERR value is not an integer or out of range"));
            assertThat(client.call("INCRBY", "n", "12abc"))
                    .isEqualTo(new Err("ERR value is not an integer or out of range"));
            assertThat(client.call("GET", "precious")).isEqualTo("data");
        }
        assertServerStillServesWithDataIntact();
    }

    @Test
    void valueOverTheLimitIsRefusedBeforeReachingTheBackend() {
        try (RawClient client = server.client()) {
            assertThat(client.call("SET", "precious", "v".repeat(MAX_VALUE_BYTES + 1)))
                    .isEqualTo(new Err("ERR value exceeds the configured maximum of 1024 bytes"));
            assertThat(client.call("MSET", "a", "1", "b", "v".repeat(MAX_BULK_BYTES)))
                    .isEqualTo(new Err("ERR value exceeds the configured maximum of 1024 bytes"));
            assertThat(client.call("SET", "precious", "v".repeat(MAX_VALUE_BYTES))).isEqualTo("OK");
            assertThat(client.call("SET", "precious", "data")).isEqualTo("OK");
            assertThat(client.call("EXISTS", "a")).as("MSET is all or nothing").isEqualTo(0L);
        }
        assertServerStillServesWithDataIntact();
    }

    @Test
    void appendBeyondTheLimitIsRefusedByTheStore() {
        try (RawClient client = server.client()) {
            assertThat(client.call("SET", "s", "v".repeat(MAX_VALUE_BYTES))).isEqualTo("OK");
            assertThat(client.call("APPEND", "s", "more"))
                    .isEqualTo(new Err("ERR value of 1028 bytes exceeds the maximum of 1024 bytes"));
            assertThat(client.call("STRLEN", "s")).isEqualTo((long) MAX_VALUE_BYTES);
        }
    }

    @Test
    void keyOverTheLimitIsRefused() {
        try (RawClient client = server.client()) {
            String longKey = "k".repeat(MAX_KEY_BYTES + 1);
            assertThat(client.call("SET", longKey, "v"))
                    .isEqualTo(new Err("ERR key exceeds the configured maximum of 128 bytes"));
            assertThat(client.call("GET", "k".repeat(MAX_BULK_BYTES)))
                    .isEqualTo(new Err("ERR key exceeds the configured maximum of 128 bytes"));
            assertThat(client.call("GET", "k".repeat(MAX_KEY_BYTES))).isNull();
        }
        assertServerStillServesWithDataIntact();
    }

    private void assertProtocolError(String input, String expectedError) {
        try (RawClient client = server.client()) {
            client.send(input);
            assertThat(client.read()).isEqualTo(new Err(expectedError));
            assertThat(client.closedByServer()).isTrue();
        }
        assertServerStillServesWithDataIntact();
    }

    private void assertServerStillServesWithDataIntact() {
        try (RawClient other = server.client()) {
            assertThat(other.call("PING")).isEqualTo("PONG");
            assertThat(other.call("GET", "precious")).isEqualTo("data");
        }
    }
}
