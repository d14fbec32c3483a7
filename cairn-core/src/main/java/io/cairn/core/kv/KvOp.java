package io.cairn.core.kv;

import java.util.Arrays;

/**
 * One key-value operation, as the router sends it and the replicaset applies it.
 * Relative expiry times ({@link #FLAG_EXPIRE_REL}, EXPIRE) are turned into absolute times
 * with the timestamp the leader stamps on the log entry, so every replica agrees on them.
 *
 * @param bucket the key's bucket, computed by the router
 * @param value  the value for SET and APPEND, else null
 * @param arg    SET/EXPIRE: milliseconds; INCRBY: the delta
 */
public record KvOp(Type type, int bucket, byte[] key, byte[] value, long arg, int flags) {
    public static final int FLAG_NX = 1;
    public static final int FLAG_XX = 2;
    public static final int FLAG_GET = 4;
    public static final int FLAG_KEEPTTL = 8;
    /** SET: arg is a time to live in milliseconds. */
    public static final int FLAG_EXPIRE_REL = 16;
    /** SET: arg is an absolute unix time in milliseconds. */
    public static final int FLAG_EXPIRE_ABS = 32;

    public enum Type {
        GET(true), EXISTS(true), STRLEN(true), PTTL(true),
        SET(false), DEL(false), INCRBY(false), APPEND(false), GETDEL(false),
        PEXPIRE(false), PERSIST(false),
        /** Deletes the key only if it is expired at apply time (the expiry sweeper's delete). */
        DEL_IF_EXPIRED(false);

        public final boolean readOnly;

        Type(boolean readOnly) {
            this.readOnly = readOnly;
        }
    }

    public static KvOp get(int bucket, byte[] key) {
        return new KvOp(Type.GET, bucket, key, null, 0, 0);
    }

    public static KvOp set(int bucket, byte[] key, byte[] value) {
        return new KvOp(Type.SET, bucket, key, value, 0, 0);
    }

    public static KvOp of(Type type, int bucket, byte[] key) {
        return new KvOp(type, bucket, key, null, 0, 0);
    }

    public boolean readOnly() {
        return type.readOnly;
    }

    public boolean has(int flag) {
        return (flags & flag) != 0;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KvOp k && type == k.type && bucket == k.bucket && arg == k.arg && flags == k.flags
                && Arrays.equals(key, k.key) && Arrays.equals(value, k.value);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(key) + type.hashCode();
    }

    @Override
    public String toString() {
        return type + "(" + bucket + "," + new String(key, java.nio.charset.StandardCharsets.UTF_8) + ")";
    }
}
