package io.cairn.core.kv;

import io.cairn.core.ErrorCode;

import java.util.List;
import java.util.Objects;

/**
 * The packed arguments of a collection command, checked before anything is written: a malformed
 * list, too few arguments or an oversized one fail the same way on every replica and change nothing.
 *
 * @param list  the arguments, when they are sound
 * @param error the refusal otherwise (null when sound)
 */
record PackedArgs(List<byte[]> list, OpResult error) {
    static PackedArgs of(KvOp op, int minArgs, int maxValueBytes) {
        List<byte[]> args;
        try {
            args = op.value() == null ? List.of() : Packed.decode(op.value());
        } catch (IllegalArgumentException | java.nio.BufferUnderflowException malformed) {
            return refused(OpResult.error(ErrorCode.PROTOCOL, op.type() + " arguments are malformed: " + malformed.getMessage()));
        }
        if (args.size() < minArgs || args.stream().anyMatch(Objects::isNull)) {
            return refused(OpResult.error(ErrorCode.PROTOCOL, op.type() + " needs " + minArgs + " arguments, got " + args.size()));
        }
        for (byte[] a : args) {
            if (a.length > maxValueBytes) {
                return refused(OpResult.error(ErrorCode.VALUE_TOO_LARGE,
                        "value of " + a.length + " bytes exceeds the maximum of " + maxValueBytes + " bytes"));
            }
        }
        return new PackedArgs(args, null);
    }

    private static PackedArgs refused(OpResult error) {
        return new PackedArgs(null, error);
    }
}
