package io.cairn.core.kv;

import io.cairn.core.ErrorCode;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Redis 7 list commands over a {@link KvView} (the encoding is {@link ListMeta}'s), deterministic
 * like {@link KvApplier}. Pushes and pops at either end, LINDEX, LSET and LRANGE touch only the
 * entries they name; LINSERT shifts the shorter side of the insertion point; LREM and LPOS read the
 * whole list (as Redis walks it). A list whose last element goes is deleted, as in Redis.
 *
 * <p>Arguments travel in the operation's packed value (integers as 8-byte big-endian entries):
 * pushes: the elements; LPOP/RPOP: none, {@code arg} the count when {@link KvOp#FLAG_COUNT};
 * LRANGE/LTRIM: start, stop; LINDEX: {@code arg} the index; LSET: element, {@code arg} the index;
 * LINSERT: pivot, element, {@code arg} 1 for AFTER; LREM: element, {@code arg} the count;
 * LPOS: element, rank, count, maxlen, {@link KvOp#FLAG_COUNT} when COUNT was given;
 * LMOVE: the destination key (same bucket: the router checks), {@code arg} bit 0 pops from the
 * right, bit 1 pushes on the right; LMPOP: the keys after the first, {@code arg} the count,
 * {@link KvOp#FLAG_RIGHT} to pop from the right, answering [key, element...] or nil. LPOS with COUNT answers its positions as decimal text in an
 * array (the router turns them into integers); a pop with a count on a missing key answers nil
 * (the router's null array).
 */
final class ListApplier {
    private final int maxValueBytes;

    ListApplier(int maxValueBytes) {
        this.maxValueBytes = maxValueBytes;
    }

    OpResult apply(KvOp op, byte[] raw, byte[] stored, KvView view, long nowMs) {
        if (stored != null && !ListMeta.isList(stored)) return HashApplier.wrongType();
        PackedArgs parsed = PackedArgs.of(op, minArgs(op.type()), maxValueBytes);
        if (parsed.error() != null) return parsed.error();
        List<byte[]> args = parsed.list();
        ListState list = new ListState(op.bucket(), op.key(), raw, stored, view);
        return switch (op.type()) {
            case LLEN -> OpResult.integer(list.count);
            case LPUSH, RPUSH -> push(list, args, op.type() == KvOp.Type.RPUSH);
            case LPUSHX, RPUSHX -> stored == null ? OpResult.integer(0) : push(list, args, op.type() == KvOp.Type.RPUSHX);
            case LPOP, RPOP -> pop(op, list, op.type() == KvOp.Type.RPOP);
            case LRANGE -> range(list, longArg(args, 0), longArg(args, 1));
            case LINDEX -> {
                long i = list.normalize(op.arg());
                yield OpResult.bulk(i < 0 || i >= list.count ? null : list.get(i));
            }
            case LSET -> lset(list, op.arg(), args.get(0));
            case LINSERT -> linsert(list, args.get(0), args.get(1), op.arg() == 1);
            case LREM -> lrem(list, args.get(0), op.arg());
            case LTRIM -> ltrim(list, longArg(args, 0), longArg(args, 1));
            case LPOS -> lpos(op, list, args);
            case LMOVE -> lmove(op, list, args.get(0), view, nowMs);
            case LMPOP -> lmpop(op, args, view, nowMs);
            default -> throw new IllegalArgumentException(op.type() + " is not a list command");
        };
    }

    private static int minArgs(KvOp.Type type) {
        return switch (type) {
            case LPUSH, RPUSH, LPUSHX, RPUSHX, LSET, LREM, LMOVE -> 1;
            case LRANGE, LTRIM, LINSERT -> 2;
            case LPOS -> 4;
            default -> 0;
        };
    }

    private static long longArg(List<byte[]> args, int index) {
        byte[] a = args.get(index);
        if (a.length != 8) throw new IllegalArgumentException("integer argument " + index + " is not 8 bytes");
        return ByteBuffer.wrap(a).getLong();
    }

    private static OpResult push(ListState list, List<byte[]> elements, boolean right) {
        for (byte[] e : elements) {
            if (right) list.pushRight(e);
            else list.pushLeft(e);
        }
        list.save();
        return OpResult.integer(list.count);
    }

    private static OpResult pop(KvOp op, ListState list, boolean right) {
        boolean withCount = op.has(KvOp.FLAG_COUNT);
        if (!list.exists()) return OpResult.NIL;
        if (!withCount) {
            byte[] e = right ? list.popRight() : list.popLeft();
            list.save();
            return OpResult.bulk(e);
        }
        long n = Math.min(Math.max(op.arg(), 0), list.count);
        List<byte[]> out = new ArrayList<>((int) n);
        for (long i = 0; i < n; i++) out.add(right ? list.popRight() : list.popLeft());
        if (n > 0) list.save();
        return OpResult.array(out);
    }

    /** LRANGE's and LTRIM's index rules: negative from the end, clamped; null when the range is empty. */
    private static long[] clamp(ListState list, long start, long stop) {
        if (start < 0) start = Math.max(0, list.count + start);
        if (stop < 0) stop = list.count + stop;
        if (start > stop || start >= list.count) return null;
        return new long[] {start, Math.min(stop, list.count - 1)};
    }

    private static OpResult range(ListState list, long start, long stop) {
        long[] r = clamp(list, start, stop);
        if (r == null) return OpResult.array(List.of());
        return OpResult.array(list.slice(r[0], r[1] - r[0] + 1));
    }

    private static OpResult lset(ListState list, long index, byte[] element) {
        if (!list.exists()) return OpResult.error(ErrorCode.NO_SUCH_KEY, null);
        long i = list.normalize(index);
        if (i < 0 || i >= list.count) return OpResult.error(ErrorCode.INDEX_OUT_OF_RANGE, null);
        list.set(i, element);
        list.save();
        return OpResult.OK;
    }

    private static OpResult linsert(ListState list, byte[] pivot, byte[] element, boolean after) {
        if (!list.exists()) return OpResult.integer(0);
        List<byte[]> all = list.all();
        int at = indexOf(all, pivot);
        if (at < 0) return OpResult.integer(-1);
        list.insert(all, after ? at + 1 : at, element);
        list.save();
        return OpResult.integer(list.count);
    }

    private static int indexOf(List<byte[]> all, byte[] element) {
        for (int i = 0; i < all.size(); i++) if (Arrays.equals(all.get(i), element)) return i;
        return -1;
    }

    /** LREM: count > 0 removes the first count matches from the left, < 0 from the right, 0 all of them. */
    private static OpResult lrem(ListState list, byte[] element, long count) {
        if (!list.exists()) return OpResult.integer(0);
        List<byte[]> all = list.all();
        boolean[] remove = new boolean[all.size()];
        long limit = count == 0 ? Long.MAX_VALUE : Math.abs(count);
        long removed = 0;
        for (int k = 0; k < all.size() && removed < limit; k++) {
            int i = count < 0 ? all.size() - 1 - k : k;
            if (Arrays.equals(all.get(i), element)) {
                remove[i] = true;
                removed++;
            }
        }
        if (removed == 0) return OpResult.integer(0);
        List<byte[]> kept = new ArrayList<>(all.size() - (int) removed);
        int firstRemoved = -1;
        for (int i = 0; i < all.size(); i++) {
            if (!remove[i]) kept.add(all.get(i));
            else if (firstRemoved < 0) firstRemoved = i;
        }
        list.rewriteFrom(firstRemoved, kept);
        list.save();
        return OpResult.integer(removed);
    }

    private static OpResult ltrim(ListState list, long start, long stop) {
        if (!list.exists()) return OpResult.OK;
        long[] r = clamp(list, start, stop);
        long fromLeft = r == null ? list.count : r[0];
        long fromRight = r == null ? 0 : list.count - 1 - r[1];
        for (long i = 0; i < fromLeft; i++) list.popLeft();
        for (long i = 0; i < fromRight; i++) list.popRight();
        list.save();
        return OpResult.OK;
    }

    /** LPOS element RANK rank COUNT count MAXLEN maxlen: positions of matches, from the end when rank < 0. */
    private static OpResult lpos(KvOp op, ListState list, List<byte[]> args) {
        byte[] element = args.get(0);
        long rank = longArg(args, 1);
        long count = longArg(args, 2);
        long maxLen = longArg(args, 3);
        boolean withCount = op.has(KvOp.FLAG_COUNT);
        List<byte[]> all = list.exists() ? list.all() : List.of();
        List<byte[]> positions = new ArrayList<>();
        // RANK -9223372036854775808 is taken by redis-server 7.0 as the first match from the end: so here too.
        long skip = rank == Long.MIN_VALUE ? 0 : Math.abs(rank) - 1;
        long wanted = withCount ? (count == 0 ? Long.MAX_VALUE : count) : 1;
        long scanned = 0;
        for (int k = 0; k < all.size() && positions.size() < wanted && (maxLen == 0 || scanned < maxLen); k++, scanned++) {
            int i = rank < 0 ? all.size() - 1 - k : k;
            if (!Arrays.equals(all.get(i), element)) continue;
            if (skip > 0) {
                skip--;
                continue;
            }
            positions.add(Long.toString(i).getBytes(StandardCharsets.US_ASCII));
        }
        if (withCount) return OpResult.array(positions);
        return positions.isEmpty() ? OpResult.NIL : OpResult.integer(Long.parseLong(new String(positions.get(0), StandardCharsets.US_ASCII)));
    }

    /**
     * LMPOP: pops up to {@code arg} elements from the first of the keys that holds a list, as
     * redis-server does: keys before it are skipped when missing, a key of another type is WRONGTYPE.
     */
    private static OpResult lmpop(KvOp op, List<byte[]> otherKeys, KvView view, long nowMs) {
        List<byte[]> keys = new ArrayList<>(otherKeys.size() + 1);
        keys.add(op.key());
        keys.addAll(otherKeys);
        for (byte[] key : keys) {
            byte[] raw = view.get(op.bucket(), key);
            byte[] stored = raw == null || StoredValue.isExpired(raw, nowMs) ? null : raw;
            if (stored == null) continue;
            if (!ListMeta.isList(stored)) return HashApplier.wrongType();
            ListState list = new ListState(op.bucket(), key, raw, stored, view);
            long n = Math.min(Math.max(op.arg(), 1), list.count);
            List<byte[]> out = new ArrayList<>((int) n + 1);
            out.add(key);
            for (long i = 0; i < n; i++) out.add(op.has(KvOp.FLAG_RIGHT) ? list.popRight() : list.popLeft());
            list.save();
            return OpResult.array(out);
        }
        return OpResult.NIL;
    }

    /** LMOVE/RPOPLPUSH: a missing source answers nil whatever the destination holds; a wrong-type destination changes nothing. */
    private static OpResult lmove(KvOp op, ListState source, byte[] destKey, KvView view, long nowMs) {
        if (!source.exists()) return OpResult.NIL;
        ListState dest = source;
        if (!Arrays.equals(destKey, op.key())) {
            byte[] destRaw = view.get(op.bucket(), destKey);
            byte[] destStored = destRaw == null || StoredValue.isExpired(destRaw, nowMs) ? null : destRaw;
            if (destStored != null && !ListMeta.isList(destStored)) return HashApplier.wrongType();
            dest = new ListState(op.bucket(), destKey, destRaw, destStored, view);
        }
        byte[] element = (op.arg() & KvOp.LMOVE_FROM_RIGHT) != 0 ? source.popRight() : source.popLeft();
        if ((op.arg() & KvOp.LMOVE_TO_RIGHT) != 0) dest.pushRight(element);
        else dest.pushLeft(element);
        source.save();
        if (dest != source) dest.save();
        return OpResult.bulk(element);
    }
}
