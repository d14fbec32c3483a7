package io.cairn.core.kv;

import io.cairn.core.ErrorCode;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Redis 7 set commands over a {@link KvView}, deterministic like {@link KvApplier}: a set is
 * metadata plus one field entry per member with an empty value ({@link CollectionMeta}). Members
 * come back in byte order (Redis's order is its hash table's; clients treat it as unordered).
 *
 * <p>Arguments travel in the operation's packed value: SADD/SREM/SMISMEMBER: the members;
 * SISMEMBER: the member; SPOP/SRANDMEMBER: an 8-byte seed chosen by the router (so every replica
 * picks the same members), {@code arg} the count when {@link KvOp#FLAG_COUNT}; SSCAN: the 8-byte
 * COUNT, {@code arg} the cursor; SINTER/SUNION/SDIFF/SINTERCARD: the keys after the first
 * (SINTERCARD's limit in {@code arg}, 0: none); the STORE forms: the op's key is the destination and
 * the packed list every source key; SMOVE: destination, member. Keys in the packed list are in the
 * op's bucket (the router refuses keys of different buckets). SMISMEMBER answers "0"/"1" texts in
 * an array, which the router turns into integers.
 */
final class SetApplier {
    private static final byte[] NO_VALUE = new byte[0];

    private final int maxValueBytes;

    SetApplier(int maxValueBytes) {
        this.maxValueBytes = maxValueBytes;
    }

    OpResult apply(KvOp op, byte[] raw, byte[] stored, KvView view, long nowMs) {
        boolean storeForm = op.type() == KvOp.Type.SINTERSTORE || op.type() == KvOp.Type.SUNIONSTORE || op.type() == KvOp.Type.SDIFFSTORE;
        // A STORE form overwrites its destination whatever it holds, as in Redis.
        if (!storeForm && stored != null && !isSet(stored)) return HashApplier.wrongType();
        PackedArgs parsed = PackedArgs.of(op, minArgs(op.type()), maxValueBytes);
        if (parsed.error() != null) return parsed.error();
        List<byte[]> args = parsed.list();
        Members set = new Members(op.bucket(), op.key(), raw, stored, view);
        return switch (op.type()) {
            case SCARD -> OpResult.integer(set.count);
            case SISMEMBER -> OpResult.integer(set.contains(args.get(0)) ? 1 : 0);
            case SMISMEMBER -> {
                List<byte[]> out = new ArrayList<>(args.size());
                for (byte[] m : args) out.add(ascii(set.contains(m) ? "1" : "0"));
                yield OpResult.array(out);
            }
            case SMEMBERS -> OpResult.array(set.all());
            case SADD -> {
                long added = 0;
                for (byte[] m : args) added += set.add(m) ? 1 : 0;
                set.save();
                yield OpResult.integer(added);
            }
            case SREM -> {
                long removed = 0;
                for (byte[] m : args) removed += set.remove(m) ? 1 : 0;
                set.save();
                yield OpResult.integer(removed);
            }
            case SPOP -> spop(op, set, args.get(0));
            case SRANDMEMBER -> srandmember(op, set, args.get(0));
            case SSCAN -> sscan(op, set, args.get(0));
            case SMOVE -> smove(op, set, args.get(0), args.get(1), view, nowMs);
            case SINTER, SUNION, SDIFF, SINTERCARD -> combine(op, prepend(op.key(), args), view, nowMs, null);
            case SINTERSTORE, SUNIONSTORE, SDIFFSTORE -> combine(op, args, view, nowMs, set);
            default -> throw new IllegalArgumentException(op.type() + " is not a set command");
        };
    }

    private static int minArgs(KvOp.Type type) {
        return switch (type) {
            case SISMEMBER, SADD, SREM, SMISMEMBER, SPOP, SRANDMEMBER, SSCAN, SINTERSTORE, SUNIONSTORE, SDIFFSTORE -> 1;
            case SMOVE -> 2;
            default -> 0;
        };
    }

    static boolean isSet(byte[] stored) {
        return stored != null && stored.length > 0 && StoredValue.type(stored) == StoredValue.TYPE_SET;
    }

    /** Sets up to this size pick a member by a uniform position (a walk of at most this many). */
    static final long UNIFORM_MAX_MEMBERS = 128;
    private static final int POINT_BYTES = 7;

    /** A name between {@code low} and {@code high} (low <= high): their shared prefix, then a number drawn between theirs. */
    static byte[] pointBetween(byte[] low, byte[] high, SplittableRandom random) {
        int shared = Arrays.mismatch(low, high);
        if (shared < 0) return low;
        long from = digits(low, shared), to = digits(high, shared);
        long drawn = to > from ? from + random.nextLong(to - from + 1) : from;
        byte[] point = Arrays.copyOf(low, shared + POINT_BYTES);
        for (int i = POINT_BYTES - 1; i >= 0; i--, drawn >>>= 8) point[shared + i] = (byte) drawn;
        return point;
    }

    /** The {@link #POINT_BYTES} bytes of {@code name} from {@code offset} as an unsigned number (missing bytes are 0). */
    private static long digits(byte[] name, int offset) {
        long n = 0;
        for (int i = 0; i < POINT_BYTES; i++) n = (n << 8) | (offset + i < name.length ? name[offset + i] & 0xFF : 0);
        return n;
    }

    private static SplittableRandom random(byte[] seed) {
        return new SplittableRandom(seed.length >= 8 ? ByteBuffer.wrap(seed).getLong() : 0);
    }

    private static OpResult spop(KvOp op, Members set, byte[] seed) {
        boolean withCount = op.has(KvOp.FLAG_COUNT);
        if (set.count == 0) return withCount ? OpResult.array(List.of()) : OpResult.NIL;
        // One member: a uniformly random position, skipped to in RocksDB without copying the members
        // before it (a count reads the whole set to choose distinct members).
        List<byte[]> chosen = withCount ? RandomPicks.distinct(set.all(), op.arg(), random(seed)) : List.of(set.randomMember(random(seed)));
        for (byte[] m : chosen) set.remove(m);
        set.save();
        return withCount ? OpResult.array(chosen) : OpResult.bulk(chosen.get(0));
    }

    /** SRANDMEMBER: without a count one member or nil; a positive count distinct members, a negative one with repeats. */
    private static OpResult srandmember(KvOp op, Members set, byte[] seed) {
        boolean withCount = op.has(KvOp.FLAG_COUNT);
        if (set.count == 0) return withCount ? OpResult.array(List.of()) : OpResult.NIL;
        SplittableRandom random = random(seed);
        if (!withCount) return OpResult.bulk(set.randomMember(random));
        List<byte[]> all = set.all();
        return OpResult.array(op.arg() >= 0 ? RandomPicks.distinct(all, op.arg(), random) : RandomPicks.withRepeats(all, -op.arg(), random));
    }

    /** SSCAN: the cursor is a position in member order (a member removed behind it during a scan may shift one past). */
    private static OpResult sscan(KvOp op, Members set, byte[] countArg) {
        if (countArg.length != 8) return OpResult.error(ErrorCode.PROTOCOL, "SSCAN count is not 8 bytes");
        long count = Math.max(1, ByteBuffer.wrap(countArg).getLong());
        long from = Math.max(op.arg(), 0);
        List<byte[]> page = set.page(from, (int) Math.min(count, Integer.MAX_VALUE));
        long next = from + page.size() >= set.count || page.isEmpty() ? 0 : from + page.size();
        List<byte[]> out = new ArrayList<>(1 + page.size());
        out.add(ascii(Long.toString(next)));
        out.addAll(page);
        return OpResult.array(out);
    }

    /** SMOVE: a missing source answers 0 whatever the destination holds; a destination of another type is WRONGTYPE. */
    private static OpResult smove(KvOp op, Members source, byte[] destKey, byte[] member, KvView view, long nowMs) {
        if (source.count == 0) return OpResult.integer(0);
        Members dest = open(op.bucket(), destKey, view, nowMs);
        if (dest == null) return HashApplier.wrongType();
        if (Arrays.equals(destKey, op.key())) return OpResult.integer(source.contains(member) ? 1 : 0);
        if (!source.remove(member)) return OpResult.integer(0);
        dest.add(member);
        source.save();
        dest.save();
        return OpResult.integer(1);
    }

    /**
     * SINTER, SUNION, SDIFF (and SINTERCARD, the STORE forms) over {@code keys} in order. As in
     * redis-server 7.0, every key's type is checked first: a wrong type anywhere is WRONGTYPE, even
     * after a missing key that makes an intersection empty.
     */
    private static OpResult combine(KvOp op, List<byte[]> keys, KvView view, long nowMs, Members destination) {
        KvOp.Type type = op.type();
        boolean inter = type == KvOp.Type.SINTER || type == KvOp.Type.SINTERCARD || type == KvOp.Type.SINTERSTORE;
        boolean union = type == KvOp.Type.SUNION || type == KvOp.Type.SUNIONSTORE;
        List<Members> sets = new ArrayList<>(keys.size());
        for (byte[] key : keys) {
            Members m = open(op.bucket(), key, view, nowMs);
            if (m == null) return HashApplier.wrongType();
            sets.add(m);
        }
        TreeMap<byte[], Boolean> result = null;
        for (Members m : sets) {
            if (inter && m.count == 0) {
                result = new TreeMap<>(Arrays::compareUnsigned);
                break;
            }
            if (result == null) {
                result = new TreeMap<>(Arrays::compareUnsigned);
                for (byte[] e : m.all()) result.put(e, Boolean.TRUE);
            } else if (union) {
                for (byte[] e : m.all()) result.put(e, Boolean.TRUE);
            } else if (inter) {
                result.keySet().removeIf(e -> !m.contains(e));
            } else {
                for (byte[] e : m.all()) result.remove(e);
            }
        }
        List<byte[]> members = new ArrayList<>(result == null ? List.of() : result.keySet());
        if (type == KvOp.Type.SINTERCARD) {
            return OpResult.integer(op.arg() > 0 ? Math.min(op.arg(), members.size()) : members.size());
        }
        if (destination == null) return OpResult.array(members);
        destination.replaceWith(members);
        return OpResult.integer(members.size());
    }

    /** The set at {@code key} (empty when absent or expired), or null when the key holds another type. */
    private static Members open(int bucket, byte[] key, KvView view, long nowMs) {
        byte[] raw = view.get(bucket, key);
        byte[] stored = raw == null || StoredValue.isExpired(raw, nowMs) ? null : raw;
        if (stored != null && !isSet(stored)) return null;
        return new Members(bucket, key, raw, stored, view);
    }

    private static List<byte[]> prepend(byte[] first, List<byte[]> rest) {
        List<byte[]> all = new ArrayList<>(rest.size() + 1);
        all.add(first);
        all.addAll(rest);
        return all;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** One set being read or changed (see {@link CollectionState}): one entry per member, with an empty value. */
    private static final class Members extends CollectionState {
        Members(int bucket, byte[] key, byte[] raw, byte[] stored, KvView view) {
            super(bucket, key, raw, stored != null && isSet(stored) ? stored : null, view);
        }

        @Override
        byte[] meta(long expireAtMs) {
            return CollectionMeta.encode(StoredValue.TYPE_SET, count, expireAtMs);
        }

        boolean contains(byte[] member) {
            return count > 0 && view.getField(bucket, key, member) != null;
        }

        List<byte[]> all() {
            return page(0, Integer.MAX_VALUE);
        }

        List<byte[]> page(long from, int limit) {
            if (count == 0) return new ArrayList<>();
            List<byte[]> out = new ArrayList<>();
            for (KvView.Field f : view.fields(bucket, key, from, limit)) out.add(f.name());
            return out;
        }

        byte[] at(long index) {
            return view.fields(bucket, key, index, 1).get(0).name();
        }

        /**
         * One member at random without walking the set (SPOP and SRANDMEMBER without a count): a small
         * set picks a uniform position; a bigger one draws a point between its first and its last
         * member's names (their next 7 bytes after the prefix they share, read as a number) and takes
         * the first member at or after it, two seeks. Like Redis's, not exactly uniform: a member
         * after a wide gap in the names comes up more often.
         */
        byte[] randomMember(SplittableRandom random) {
            if (count <= UNIFORM_MAX_MEMBERS) return at(random.nextLong(count));
            byte[] first = view.fieldsFrom(bucket, key, new byte[0], 1).get(0).name();
            byte[] last = view.lastField(bucket, key).name();
            List<KvView.Field> at = view.fieldsFrom(bucket, key, pointBetween(first, last, random), 1);
            return at.isEmpty() ? first : at.get(0).name();
        }

        boolean add(byte[] member) {
            if (contains(member)) return false;
            beforeWrite();
            view.putField(bucket, key, member, NO_VALUE);
            count++;
            return true;
        }

        boolean remove(byte[] member) {
            if (!contains(member)) return false;
            view.deleteField(bucket, key, member);
            count--;
            afterDelete();
            return true;
        }

        /** A STORE form's destination: whatever the key held (any type) is replaced; no expiry is kept, as in Redis. */
        void replaceWith(List<byte[]> members) {
            if (raw != null) KvApplier.deleteRecord(bucket, key, raw, view);
            markCleared();
            for (byte[] m : members) view.putField(bucket, key, m, NO_VALUE);
            if (!members.isEmpty()) view.put(bucket, key, CollectionMeta.encode(StoredValue.TYPE_SET, members.size(), 0));
        }
    }
}
