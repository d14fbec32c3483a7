package io.cairn.core.kv;

import io.cairn.core.ErrorCode;
import io.cairn.core.ErrorPayload;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The result of one {@link KvOp}: a bulk value (possibly nil), an integer, OK, or an error
 * from the catalogue. Errors are values: a batch can hold successes and failures side by side.
 *
 * @param payload an error's typed hint (where its bucket moved), null when there is none or this is no error
 */
public record OpResult(Kind kind, byte[] bytes, long number, ErrorCode error, String message, ErrorPayload payload) {
    /** Wire order: new kinds go at the end. ARRAY holds a {@link Packed} list in {@code bytes}; STATUS a simple string. */
    /** A result's kind; its {@link #code()} is kept in stored replies and sent to routers: never reuse or renumber one. */
    public enum Kind {
        BULK(0), INTEGER(1), OK(2), ERROR(3), ARRAY(4), STATUS(5);

        private final byte code;

        Kind(int code) {
            this.code = (byte) code;
        }

        public byte code() {
            return code;
        }
    }

    public OpResult(Kind kind, byte[] bytes, long number, ErrorCode error, String message) {
        this(kind, bytes, number, error, message, null);
    }

    public static final OpResult OK = new OpResult(Kind.OK, null, 0, null, null);
    public static final OpResult NIL = new OpResult(Kind.BULK, null, 0, null, null);

    public static OpResult bulk(byte[] bytes) {
        return bytes == null ? NIL : new OpResult(Kind.BULK, bytes, 0, null, null);
    }

    /** An array of bulk strings (null elements allowed). */
    public static OpResult array(List<byte[]> elements) {
        return new OpResult(Kind.ARRAY, Packed.encode(elements), 0, null, null);
    }

    /** A simple string reply (TYPE's "hash"). */
    public static OpResult status(String text) {
        return new OpResult(Kind.STATUS, text.getBytes(StandardCharsets.UTF_8), 0, null, null);
    }

    /** The elements of an ARRAY result. */
    public List<byte[]> elements() {
        if (kind != Kind.ARRAY) throw new IllegalStateException(kind + " is not an array");
        return Packed.decode(bytes);
    }

    public static OpResult integer(long n) {
        return new OpResult(Kind.INTEGER, null, n, null, null);
    }

    public static OpResult error(ErrorCode code, String message) {
        return error(code, message, null);
    }

    /** An error with its typed payload ({@code null}: none); the message stays the human-readable text. */
    public static OpResult error(ErrorCode code, String message, ErrorPayload payload) {
        return new OpResult(Kind.ERROR, null, 0, code, message == null ? code.description : message, payload);
    }

    public boolean isError() {
        return kind == Kind.ERROR;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OpResult r && kind == r.kind && number == r.number && error == r.error
                && Arrays.equals(bytes, r.bytes) && Objects.equals(message, r.message) && Objects.equals(payload, r.payload);
    }

    @Override
    public int hashCode() {
        return kind.hashCode() * 31 + Long.hashCode(number) + Arrays.hashCode(bytes);
    }
}
