package io.cairn.core.kv;

import io.cairn.core.ErrorCode;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Redis 7 sorted set commands over a {@link KvView} (the encoding is {@link ZSetMeta}'s),
 * deterministic like {@link KvApplier}. ZSCORE, ZADD and ZREM are point reads and writes; ZRANGE by
 * rank reads only the ranks it answers; ZCOUNT and BYSCORE seek to the interval's low end in the
 * score index and stop past its high end; ZRANK and the BYLEX forms walk the score index from the
 * lowest score (Redis's skiplist keeps spans for ranks; a rank index is not built here).
 *
 * <p>Arguments travel in the operation's packed value (integers as 8-byte entries, scores and
 * intervals as the client's text): ZADD: score, member, ... with {@link KvOp#FLAG_NX} XX GT LT CH
 * INCR; ZINCRBY: increment, member; ZREM/ZMSCORE: members; ZSCORE/ZRANK/ZREVRANK: member; ZCOUNT:
 * min, max; ZRANGE: by rank start, stop, else min, max, offset, count (count < 0: no LIMIT), with
 * {@link KvOp#FLAG_BYSCORE}, {@link KvOp#FLAG_BYLEX}, {@link KvOp#FLAG_REV} and
 * {@link KvOp#FLAG_WITHVALUES} for WITHSCORES, min below max whatever REV says; ZREMRANGE: the same
 * two bounds; ZPOPMIN/ZPOPMAX: {@code arg} the count; ZSCAN: the 8-byte COUNT, {@code arg} the cursor;
 * ZLEXCOUNT: min, max; ZRANDMEMBER: the router's 8-byte seed; ZMPOP: the keys after the first,
 * {@code arg} the count, {@link KvOp#FLAG_REV} for MAX.
 */
final class ZSetApplier {
    /** Redis keeps a sorted set this small as a listpack and ZSCAN returns it whole (zset-max-listpack-entries/-value). */
    private static final int LISTPACK_MAX_ENTRIES = 128;
    private static final int LISTPACK_MAX_VALUE_BYTES = 64;

    /** Score index entries read per seek when walking a score interval. */
    private static final int READ_PAGE = 256;

    private final int maxValueBytes;

    ZSetApplier(int maxValueBytes) {
        this.maxValueBytes = maxValueBytes;
    }

    OpResult apply(KvOp op, byte[] raw, byte[] stored, KvView view, long nowMs) {
        if (stored != null && !ZSetMeta.isZSet(stored)) return HashApplier.wrongType();
        PackedArgs parsed = PackedArgs.of(op, minArgs(op), maxValueBytes);
        if (parsed.error() != null) return parsed.error();
        List<byte[]> args = parsed.list();
        ZSet z = new ZSet(op.bucket(), op.key(), raw, stored, view);
        return switch (op.type()) {
            case ZCARD -> OpResult.integer(z.count);
            case ZSCORE -> {
                Double s = z.score(args.get(0));
                yield OpResult.bulk(s == null ? null : ascii(ZSetMeta.format(s)));
            }
            case ZMSCORE -> {
                List<byte[]> out = new ArrayList<>(args.size());
                for (byte[] m : args) {
                    Double s = z.score(m);
                    out.add(s == null ? null : ascii(ZSetMeta.format(s)));
                }
                yield OpResult.array(out);
            }
            case ZRANK, ZREVRANK -> rank(z, args.get(0), op.type() == KvOp.Type.ZREVRANK);
            case ZCOUNT -> count(z, args);
            case ZRANGE -> range(op, z, args);
            case ZSCAN -> scan(op, z, args.get(0));
            case ZADD, ZINCRBY -> add(op, z, args);
            case ZREM -> {
                long removed = 0;
                for (byte[] m : args) removed += z.remove(m) ? 1 : 0;
                z.save();
                yield OpResult.integer(removed);
            }
            case ZREMRANGE -> removeRange(op, z, args);
            case ZPOPMIN, ZPOPMAX -> pop(op, z);
            case ZLEXCOUNT -> lexCount(z, args);
            case ZRANDMEMBER -> randomMembers(op, z, args.get(0));
            case ZMPOP -> zmpop(op, z, args, view, nowMs);
            default -> throw new IllegalArgumentException(op.type() + " is not a sorted set command");
        };
    }

    private static int minArgs(KvOp op) {
        return switch (op.type()) {
            case ZSCORE, ZRANK, ZREVRANK, ZREM, ZMSCORE, ZSCAN, ZRANDMEMBER -> 1;
            case ZADD, ZINCRBY, ZCOUNT, ZREMRANGE, ZLEXCOUNT -> 2;
            case ZRANGE -> op.has(KvOp.FLAG_BYSCORE) || op.has(KvOp.FLAG_BYLEX) ? 4 : 2;
            default -> 0;
        };
    }

    private static OpResult count(ZSet z, List<byte[]> args) {
        ZRanges.Scores scores = ZRanges.scores(args.get(0), args.get(1));
        if (scores == null) return OpResult.error(ErrorCode.NOT_FLOAT, "min or max is not a float");
        long[] n = {0};
        z.forEachFrom(scores.min(), READ_PAGE, e -> {
            if (scores.above(e.score())) return false;
            if (scores.contains(e.score())) n[0]++;
            return true;
        });
        return OpResult.integer(n[0]);
    }

    /** ZLEXCOUNT: walks the score index from its start, as BYLEX does (members compare in byte order only within one score). */
    private static OpResult lexCount(ZSet z, List<byte[]> args) {
        ZRanges.Members members = ZRanges.members(args.get(0), args.get(1));
        if (members == null) return OpResult.error(ErrorCode.SYNTAX, "min or max not valid string range item");
        long n = 0;
        for (ZSet.Entry e : z.ordered()) if (members.contains(e.member())) n++;
        return OpResult.integer(n);
    }

    /**
     * ZRANDMEMBER: without a count one member or nil (a position from the exact count, only that
     * entry read); a positive count distinct members (all of them, highest score first, when it
     * covers the set), a negative one with repeats; WITHSCORES puts each score after its member.
     */
    private static OpResult randomMembers(KvOp op, ZSet z, byte[] seed) {
        boolean withCount = op.has(KvOp.FLAG_COUNT);
        if (z.count == 0) return withCount ? OpResult.array(List.of()) : OpResult.NIL;
        SplittableRandom random = new SplittableRandom(seed.length >= 8 ? ByteBuffer.wrap(seed).getLong() : 0);
        if (!withCount) return OpResult.bulk(z.byRank(random.nextLong(z.count), 1).get(0).member());
        long count = op.arg();
        if (count < -KvOp.MAX_RANDOM_FIELDS) return OpResult.error(ErrorCode.PROTOCOL, "ZRANDMEMBER count below -" + KvOp.MAX_RANDOM_FIELDS);
        List<ZSet.Entry> all = z.ordered();
        List<ZSet.Entry> chosen = count < 0 ? RandomPicks.withRepeats(all, -count, random) : RandomPicks.distinct(all, count, random);
        // all of them: highest first, as redis-server's iterator walks a sorted set from its tail
        if (count >= all.size()) Collections.reverse(chosen);
        return members(chosen, op.has(KvOp.FLAG_WITHVALUES));
    }

    /**
     * ZMPOP: pops up to {@code arg} members from the first of the keys that holds a sorted set, as
     * redis-server does: keys before it are skipped when missing, a key of another type is
     * WRONGTYPE. Answers [key, member, score, ...], or nil when every key is missing.
     */
    private static OpResult zmpop(KvOp op, ZSet first, List<byte[]> otherKeys, KvView view, long nowMs) {
        ZSet z = first;
        for (int i = 0; z.count == 0 && i < otherKeys.size(); i++) {
            byte[] key = otherKeys.get(i);
            byte[] raw = view.get(op.bucket(), key);
            byte[] stored = raw == null || StoredValue.isExpired(raw, nowMs) ? null : raw;
            if (stored != null && !ZSetMeta.isZSet(stored)) return HashApplier.wrongType();
            z = new ZSet(op.bucket(), key, raw, stored, view);
        }
        if (z.count == 0) return OpResult.NIL;
        List<byte[]> out = new ArrayList<>();
        out.add(z.key);
        out.addAll(popEnd(z, Math.min(Math.max(op.arg(), 1), z.count), op.has(KvOp.FLAG_REV)));
        return OpResult.array(out);
    }

    private static OpResult rank(ZSet z, byte[] member, boolean reverse) {
        Double score = z.score(member);
        if (score == null) return OpResult.NIL;
        long rank = 0;
        for (ZSet.Entry e : z.ordered()) {
            if (Arrays.equals(e.member(), member)) break;
            rank++;
        }
        return OpResult.integer(reverse ? z.count - 1 - rank : rank);
    }

    private OpResult add(KvOp op, ZSet z, List<byte[]> args) {
        if (args.size() % 2 != 0) return OpResult.error(ErrorCode.SYNTAX, null);
        boolean incr = op.has(KvOp.FLAG_INCR) || op.type() == KvOp.Type.ZINCRBY;
        double[] scores = new double[args.size() / 2];
        for (int i = 0; i < scores.length; i++) {
            Double s = ZSetMeta.parseScore(args.get(2 * i));
            if (s == null) return OpResult.error(ErrorCode.NOT_FLOAT, null);
            scores[i] = s;
        }
        long added = 0;
        long changed = 0;
        Double last = null;
        for (int i = 0; i < scores.length; i++) {
            byte[] member = args.get(2 * i + 1);
            Double current = z.score(member);
            if (current == null ? op.has(KvOp.FLAG_XX) : op.has(KvOp.FLAG_NX)) continue;
            double next = incr && current != null ? current + scores[i] : scores[i];
            if (Double.isNaN(next)) return OpResult.error(ErrorCode.NOT_FLOAT, "resulting score is not a number (NaN)");
            if (current != null && (op.has(KvOp.FLAG_GT) && next <= current || op.has(KvOp.FLAG_LT) && next >= current)) continue;
            last = next;
            if (current == null) added++;
            else if (next != current) changed++;
            if (current == null || next != current) z.put(member, next, current);
        }
        z.save();
        if (incr) return OpResult.bulk(last == null ? null : ascii(ZSetMeta.format(last)));
        return OpResult.integer(op.has(KvOp.FLAG_CH) ? added + changed : added);
    }

    /** The entries a ZRANGE or ZREMRANGE selects, in the reply's order; null with the error when a bound is bad. */
    static List<ZSet.Entry> select(KvOp op, ZSet z, List<byte[]> args, OpResult[] error) {
        boolean rev = op.has(KvOp.FLAG_REV);
        if (!op.has(KvOp.FLAG_BYSCORE) && !op.has(KvOp.FLAG_BYLEX)) {
            long[] r = clamp(z.count, longArg(args.get(0)), longArg(args.get(1)));
            if (r == null) return List.of();
            long n = r[1] - r[0] + 1;
            List<ZSet.Entry> page = z.byRank(rev ? z.count - 1 - r[1] : r[0], n);
            if (rev) Collections.reverse(page);
            return page;
        }
        List<ZSet.Entry> matched = new ArrayList<>();
        if (op.has(KvOp.FLAG_BYSCORE)) {
            ZRanges.Scores scores = ZRanges.scores(args.get(0), args.get(1));
            if (scores == null) {
                error[0] = OpResult.error(ErrorCode.NOT_FLOAT, "min or max is not a float");
                return null;
            }
            z.forEachFrom(scores.min(), READ_PAGE, e -> {
                if (scores.above(e.score())) return false;
                if (scores.contains(e.score())) matched.add(e);
                return true;
            });
        } else {
            ZRanges.Members members = ZRanges.members(args.get(0), args.get(1));
            if (members == null) {
                error[0] = OpResult.error(ErrorCode.SYNTAX, "min or max not valid string range item");
                return null;
            }
            for (ZSet.Entry e : z.ordered()) if (members.contains(e.member())) matched.add(e);
        }
        if (rev) Collections.reverse(matched);
        if (args.size() < 4) return matched;
        long offset = longArg(args.get(2));
        long limit = longArg(args.get(3));
        if (offset < 0 || offset >= matched.size()) return List.of();
        long end = limit < 0 ? matched.size() : Math.min(matched.size(), offset + limit);
        return matched.subList((int) offset, (int) end);
    }

    private static OpResult range(KvOp op, ZSet z, List<byte[]> args) {
        OpResult[] error = new OpResult[1];
        List<ZSet.Entry> selected = select(op, z, args, error);
        if (selected == null) return error[0];
        return members(selected, op.has(KvOp.FLAG_WITHVALUES));
    }

    /** Members in order, each followed by its score WITHSCORES. */
    private static OpResult members(List<ZSet.Entry> entries, boolean withScores) {
        List<byte[]> out = new ArrayList<>(entries.size() * (withScores ? 2 : 1));
        for (ZSet.Entry e : entries) {
            out.add(e.member());
            if (withScores) out.add(ascii(ZSetMeta.format(e.score())));
        }
        return OpResult.array(out);
    }

    private static OpResult removeRange(KvOp op, ZSet z, List<byte[]> args) {
        OpResult[] error = new OpResult[1];
        List<ZSet.Entry> selected = select(op, z, args.subList(0, 2), error);
        if (selected == null) return error[0];
        for (ZSet.Entry e : selected) z.remove(e.member());
        z.save();
        return OpResult.integer(selected.size());
    }

    /** ZPOPMIN/ZPOPMAX: member, score pairs from the low or high end; an empty array for a missing key. */
    private static OpResult pop(KvOp op, ZSet z) {
        long n = Math.min(op.has(KvOp.FLAG_COUNT) ? Math.max(op.arg(), 0) : 1, z.count);
        return OpResult.array(popEnd(z, n, op.type() == KvOp.Type.ZPOPMAX));
    }

    /** Removes {@code n} members from the low end (or the high end, highest first) and saves: member, score pairs. */
    private static List<byte[]> popEnd(ZSet z, long n, boolean max) {
        List<ZSet.Entry> taken = z.byRank(max ? z.count - n : 0, n);
        if (max) Collections.reverse(taken);
        List<byte[]> out = new ArrayList<>(taken.size() * 2);
        for (ZSet.Entry e : taken) {
            z.remove(e.member());
            out.add(e.member());
            out.add(ascii(ZSetMeta.format(e.score())));
        }
        z.save();
        return out;
    }

    /** ZSCAN: member, score pairs in member order by cursor; a set small enough to be a listpack in Redis comes whole, in score order. */
    private static OpResult scan(KvOp op, ZSet z, byte[] countArg) {
        if (countArg.length != 8) return OpResult.error(ErrorCode.PROTOCOL, "ZSCAN count is not 8 bytes");
        long count = Math.max(1, ByteBuffer.wrap(countArg).getLong());
        List<ZSet.Entry> page;
        long next = 0;
        List<ZSet.Entry> small = z.count <= LISTPACK_MAX_ENTRIES ? z.ordered() : List.of();
        if (z.count <= LISTPACK_MAX_ENTRIES && small.stream().allMatch(e -> e.member().length <= LISTPACK_MAX_VALUE_BYTES)) {
            page = small; // in score order, as Redis walks a listpack
        } else {
            long from = Math.max(op.arg(), 0);
            page = z.byMember(from, (int) Math.min(count, Integer.MAX_VALUE));
            next = from + page.size() >= z.count || page.isEmpty() ? 0 : from + page.size();
        }
        List<byte[]> out = new ArrayList<>(1 + 2 * page.size());
        out.add(ascii(Long.toString(next)));
        for (ZSet.Entry e : page) {
            out.add(e.member());
            out.add(ascii(ZSetMeta.formatForScan(e.score())));
        }
        return OpResult.array(out);
    }

    /** LRANGE's index rules for ranks; null when the range is empty. */
    private static long[] clamp(long size, long start, long stop) {
        if (start < 0) start = Math.max(0, size + start);
        if (stop < 0) stop = size + stop;
        if (start > stop || start >= size) return null;
        return new long[] {start, Math.min(stop, size - 1)};
    }

    private static long longArg(byte[] a) {
        if (a.length != 8) throw new IllegalArgumentException("integer argument is not 8 bytes");
        return ByteBuffer.wrap(a).getLong();
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
