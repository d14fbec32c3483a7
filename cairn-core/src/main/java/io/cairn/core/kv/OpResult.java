package io.cairn.core.kv;

import io.cairn.core.ErrorCode;

import java.util.Arrays;

/**
 * The result of one {@link KvOp}: a bulk value (possibly nil), an integer, OK, or an error
 * from the catalogue. Errors are values: a batch can hold successes and failures side by side.
 */
public record OpResult(Kind kind, byte[] bytes, long number, ErrorCode error, String message) {
    public enum Kind { BULK, INTEGER, OK, ERROR }

    public static final OpResult OK = new OpResult(Kind.OK, null, 0, null, null);
    public static final OpResult NIL = new OpResult(Kind.BULK, null, 0, null, null);

    public static OpResult bulk(byte[] bytes) {
        return bytes == null ? NIL : new OpResult(Kind.BULK, bytes, 0, null, null);
    }

    public static OpResult integer(long n) {
        return new OpResult(Kind.INTEGER, null, n, null, null);
    }

    public static OpResult error(ErrorCode code, String message) {
        return new OpResult(Kind.ERROR, null, 0, code, message == null ? code.description : message);
    }

    public boolean isError() {
        return kind == Kind.ERROR;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OpResult r && kind == r.kind && number == r.number && error == r.error
                && Arrays.equals(bytes, r.bytes) && java.util.Objects.equals(message, r.message);
    }

    @Override
    public int hashCode() {
        return kind.hashCode() * 31 + Long.hashCode(number) + Arrays.hashCode(bytes);
    }
}
