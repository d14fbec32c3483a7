package io.cairn.core.kv;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * One key-value operation, as the router sends it and the replicaset applies it.
 * Relative expiry times ({@link #FLAG_EXPIRE_REL}, EXPIRE) are turned into absolute times
 * with the timestamp the leader stamps on the log entry, so every replica agrees on them.
 *
 * @param bucket the key's bucket, computed by the router
 * @param value  the value for SET and APPEND; hash commands: a {@link Packed} list of their
 *               arguments after the key (fields, or field/value pairs; HINCRBYFLOAT: field, increment);
 *               HRANDFIELD: the 8-byte seed of its random choice, chosen by the router so replicas agree;
 *               list and set commands: a packed list (see {@link ListApplier} and {@link SetApplier})
 * @param arg    SET/EXPIRE: milliseconds; INCRBY/HINCRBY: the delta; HRANDFIELD: the count;
 *               HSCAN: the cursor (its COUNT is the packed list's only element)
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
    /** HRANDFIELD: a count was given (arg); without it the reply is one field or nil. */
    public static final int FLAG_COUNT = 64;
    /** HRANDFIELD: values follow their fields. */
    public static final int FLAG_WITHVALUES = 128;
    /** PEXPIRE (Redis 7's EXPIRE ... GT): only when the new expiry is later than the current one (none counts as forever). */
    public static final int FLAG_GT = 256;
    /** PEXPIRE (EXPIRE ... LT): only when the new expiry is earlier than the current one (none counts as forever). */
    public static final int FLAG_LT = 512;
    /** ZADD CH: the reply counts changed scores too. */
    public static final int FLAG_CH = 1024;
    /** ZADD INCR: the score is an increment and the reply the new score. */
    public static final int FLAG_INCR = 2048;
    /** ZRANGE/ZREMRANGE: min and max are scores ("(1", "-inf"); without this or BYLEX, ranks. */
    public static final int FLAG_BYSCORE = 4096;
    /** ZRANGE/ZREMRANGE: min and max are members ("[a", "(a", "-", "+"). */
    public static final int FLAG_BYLEX = 8192;
    /** ZRANGE: highest first. */
    public static final int FLAG_REV = 16384;
    /** LMPOP: pop from the right end (else the left). */
    public static final int FLAG_RIGHT = 32768;
    /**
     * A read the router makes for itself, not a client's lookup (a blocked pop polling LLEN or ZCARD): not
     * counted in INFO's keyspace_hits and keyspace_misses, as Redis's LOOKUP_NOSTATS. A high bit, clear of the
     * per-command flags below it.
     */
    public static final int FLAG_NO_STATS = 1 << 30;
    /** OBJECT's {@code arg}: the encoding Redis would report. */
    public static final long OBJECT_ENCODING = 0;
    /** OBJECT's {@code arg}: the reference count Redis would report. */
    public static final long OBJECT_REFCOUNT = 1;
    /** LMOVE's {@code arg}: pop from the right end (else the left). */
    public static final long LMOVE_FROM_RIGHT = 1;
    /** LMOVE's {@code arg}: push on the right end (else the left). */
    public static final long LMOVE_TO_RIGHT = 2;

    /**
     * Cairn's bound on HRANDFIELD with a negative count (repeats allowed), which Redis leaves
     * unbounded: the whole reply is built in one storage answer. The router refuses past it; the
     * applier too, for a request that did not come through a router.
     */
    public static final long MAX_RANDOM_FIELDS = 1_000_000;

    /** GETEX: remove the key's expiry. */
    public static final int FLAG_PERSIST = 1024;
    /** A TX_GUARD for the {@code guarded} operations that follow it, valid while {@code bucket} is at {@code version}. */
    public static KvOp txGuard(int bucket, long version, int guarded) {
        return new KvOp(Type.TX_GUARD, bucket, new byte[0], ByteBuffer.allocate(4).putInt(guarded).array(), version, 0);
    }

    /** How many operations after this TX_GUARD it covers (0 for a malformed one). */
    public static int txGuarded(KvOp guard) {
        byte[] v = guard.value();
        return v == null || v.length != 4 ? 0 : Math.max(0, ByteBuffer.wrap(v).getInt());
    }

    /** The string edits ({@link StringEditApplier}'s). */
    public static final Set<Type> STRING_EDITS = Collections.unmodifiableSet(EnumSet.of(
            Type.GETEX, Type.SETRANGE, Type.INCRBYFLOAT, Type.SETBIT, Type.MSETNX));

    /** An operation's type; its {@link #code()} is stored in the Raft log: never reuse or renumber one. */
    public enum Type {
        GET(0, true), EXISTS(1, true), STRLEN(2, true), PTTL(3, true),
        SET(4, false), DEL(5, false), INCRBY(6, false), APPEND(7, false), GETDEL(8, false),
        PEXPIRE(9, false), PERSIST(10, false),
        /** Deletes the key only if it is expired at apply time (the expiry sweeper's delete). */
        DEL_IF_EXPIRED(11, false),
        // issue 24
        TYPE(12, true), HGET(13, true), HMGET(14, true), HEXISTS(15, true), HLEN(16, true), HGETALL(17, true), HKEYS(18, true), HVALS(19, true),
        HSTRLEN(20, true), HRANDFIELD(21, true), HSCAN(22, true),
        HSET(23, false), HSETNX(24, false), HDEL(25, false), HINCRBY(26, false), HINCRBYFLOAT(27, false),
        LLEN(28, true), LRANGE(29, true), LINDEX(30, true), LPOS(31, true),
        LPUSH(32, false), RPUSH(33, false), LPUSHX(34, false), RPUSHX(35, false), LPOP(36, false), RPOP(37, false),
        LSET(38, false), LINSERT(39, false), LREM(40, false), LTRIM(41, false), LMOVE(42, false),
        SCARD(43, true), SISMEMBER(44, true), SMISMEMBER(45, true), SMEMBERS(46, true), SRANDMEMBER(47, true), SSCAN(48, true),
        SINTER(49, true), SUNION(50, true), SDIFF(51, true), SINTERCARD(52, true),
        SADD(53, false), SREM(54, false), SPOP(55, false), SMOVE(56, false),
        SINTERSTORE(57, false), SUNIONSTORE(58, false), SDIFFSTORE(59, false),
        ZCARD(60, true), ZSCORE(61, true), ZMSCORE(62, true), ZRANK(63, true), ZREVRANK(64, true), ZCOUNT(65, true),
        ZRANGE(66, true), ZSCAN(67, true),
        ZADD(68, false), ZINCRBY(69, false), ZREM(70, false), ZREMRANGE(71, false), ZPOPMIN(72, false), ZPOPMAX(73, false),
        /** Pops from the first non-empty of several lists (LMPOP, and every attempt of BLPOP, BRPOP, BLMPOP). */
        LMPOP(74, false),
        // issue 24, string edits ({@link StringEditApplier}); codes from 75 on, after the collections' 28-74
        GETEX(75, false), SETRANGE(76, false), INCRBYFLOAT(77, false), SETBIT(78, false), MSETNX(79, false),
        /**
         * WATCH and EXEC (issue 24), answered by the store, not the applier: BUCKET_VERSION reads the version of the
         * op's bucket (it changes with every entry that writes to the bucket); TX_GUARD, first in an EXEC's unit,
         * lets the {@link #txGuarded} operations after it apply only while the bucket is still at version {@code arg}.
         */
        BUCKET_VERSION(80, true), TX_GUARD(81, false),
        /** The op's value is the destination key, in the op's bucket ({@link KeyCopyApplier}); COPY with FLAG_XX replaces it. */
        RENAME(82, false), RENAMENX(83, false), COPY(84, false),
        /**
         * Sorted-set algebra ({@link ZSetAlgebraApplier}): the packed list holds {@code arg} source keys, then the
         * client's options (WEIGHTS, AGGREGATE, WITHSCORES, LIMIT) as given; the STORE forms' key is the destination,
         * the others' the first source. ZRANGESTORE: the destination's key, the packed source key then ZRANGE's arguments.
         */
        ZUNION(85, true), ZINTER(86, true), ZDIFF(87, true), ZINTERCARD(88, true),
        ZUNIONSTORE(89, false), ZINTERSTORE(90, false), ZDIFFSTORE(91, false), ZRANGESTORE(92, false),
        /** OBJECT ENCODING ({@code arg} {@link #OBJECT_ENCODING}) or REFCOUNT ({@link #OBJECT_REFCOUNT}) of a key of any type ({@link ObjectApplier}). */
        OBJECT(93, true),
        /**
         * DUMP and RESTORE ({@link DumpApplier}): RESTORE's packed list is the TTL as the client gave it and the payload,
         * with {@link #FLAG_XX} for REPLACE and {@link #FLAG_EXPIRE_ABS} for ABSTTL.
         */
        DUMP(94, true), RESTORE(95, false),
        /**
         * ZLEXCOUNT: min, max as ZRANGEBYLEX reads them. ZRANDMEMBER: its 8-byte seed (chosen by the router, so every
         * replica agrees), {@code arg} the count with {@link #FLAG_COUNT}, {@link #FLAG_WITHVALUES} for WITHSCORES.
         * ZMPOP: pops up to {@code arg} members from the first non-empty of the key and the packed keys, highest first
         * with {@link #FLAG_REV} (ZMPOP MAX), answering [key, member, score, ...] or nil; every BZPOPMIN, BZPOPMAX and
         * BZMPOP attempt is one.
         */
        ZLEXCOUNT(96, true), ZRANDMEMBER(97, true), ZMPOP(98, false);

        public final boolean readOnly;
        private final byte code;

        Type(int code, boolean readOnly) {
            this.code = (byte) code;
            this.readOnly = readOnly;
        }

        public byte code() {
            return code;
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

    /** The hash commands ({@link HashApplier}'s). */
    public static final Set<Type> HASH_TYPES = Collections.unmodifiableSet(EnumSet.of(
            Type.HGET, Type.HMGET, Type.HEXISTS, Type.HLEN, Type.HGETALL, Type.HKEYS, Type.HVALS, Type.HSTRLEN,
            Type.HRANDFIELD, Type.HSCAN, Type.HSET, Type.HSETNX, Type.HDEL, Type.HINCRBY, Type.HINCRBYFLOAT));

    /** The list commands ({@link ListApplier}'s). */
    public static final Set<Type> LIST_TYPES = Collections.unmodifiableSet(listTypes());

    private static EnumSet<Type> listTypes() {
        EnumSet<Type> types = EnumSet.range(Type.LLEN, Type.LMOVE);
        types.add(Type.LMPOP);
        return types;
    }

    /** The set commands ({@link SetApplier}'s). */
    public static final Set<Type> SET_TYPES = Collections.unmodifiableSet(EnumSet.range(Type.SCARD, Type.SDIFFSTORE));

    /** The sorted set commands ({@link ZSetApplier}'s). */
    public static final Set<Type> ZSET_TYPES = Collections.unmodifiableSet(zsetTypes());

    private static EnumSet<Type> zsetTypes() {
        EnumSet<Type> types = EnumSet.range(Type.ZCARD, Type.ZPOPMAX);
        types.addAll(EnumSet.range(Type.ZLEXCOUNT, Type.ZMPOP));
        return types;
    }

    /** The sorted-set algebra ({@link ZSetAlgebraApplier}'s). */
    public static final Set<Type> ZSET_ALGEBRA = Collections.unmodifiableSet(EnumSet.range(Type.ZUNION, Type.ZRANGESTORE));

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
        return type + "(" + bucket + "," + new String(key, StandardCharsets.UTF_8) + ")";
    }
}
