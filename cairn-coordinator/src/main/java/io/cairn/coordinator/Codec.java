package io.cairn.coordinator;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * JSON (Jackson) for commands, replies and snapshots. Unknown fields are ignored so that a
 * newer node can add fields without breaking an older reader during a rolling upgrade.
 */
final class Codec {
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .setSerializationInclusion(JsonInclude.Include.NON_NULL)
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private Codec() {}

    static Message toMessage(Object value) {
        return Message.valueOf(UnsafeByteOperations.unsafeWrap(toBytes(value)));
    }

    static byte[] toBytes(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode " + value.getClass().getSimpleName(), e);
        }
    }

    /** Decodes a command; a malformed one is a PROTOCOL refusal, not a crash. */
    static Command command(ByteString bytes) {
        return read(bytes.toByteArray(), Command.class, "command");
    }

    static Reply reply(ByteString bytes) {
        return read(bytes.toByteArray(), Reply.class, "reply");
    }

    static <T> T read(byte[] bytes, Class<T> type, String what) {
        try {
            return MAPPER.readValue(bytes, type);
        } catch (IOException e) {
            String why = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
            throw new CairnException(ErrorCode.PROTOCOL, "malformed coordinator " + what + ": " + why);
        }
    }
}
