package io.cairn.core.kv;

import io.cairn.core.ErrorCode;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The sorted-set algebra of Redis 7 (ZUNION, ZINTER, ZDIFF, ZINTERCARD, their STORE forms and
 * ZRANGESTORE) over a {@link KvView}, in one operation: every key is in the op's bucket (the router
 * refuses others with CROSSSLOT), so the whole command applies atomically in one Raft entry, and a
 * STORE form computes its result in memory before it replaces the destination, which may be a source.
 *
 * <p>It follows redis-server 7.0's zunionInterDiffGenericCommand step by step, because the replies
 * depend on the order: every source's type is checked first (a set counts as a sorted set whose
 * members score 1, anything else is WRONGTYPE), then the options are parsed (so WRONGTYPE wins over
 * a bad weight, as in Redis; the router sends them unparsed for that reason), then the sources are
 * sorted by size (a stable sort, as glibc's qsort is) except for ZDIFF, and a member's weighted
 * scores are aggregated in that order, so float sums round as Redis rounds them. A weighted score or a
 * sum that is NaN (inf * 0, inf + -inf) becomes 0 as in Redis. Results come in (score, member) order.
 *
 * <p>Bound: an operation reads at most {@link #MAX_INPUT_ELEMENTS} elements from the sources it walks
 * (all of them for a union, the smallest for an intersection, the first for a difference; the others
 * are point lookups), so the work of one entry and the size of its reply stay bounded.
 */
final class ZSetAlgebraApplier {
    /** The most source elements one algebra operation walks. */
    static final long MAX_INPUT_ELEMENTS = 1_000_000;

    private enum Aggregate { SUM, MIN, MAX }

    /** The options after the keys, as Redis reads them. */
    private static final class Options {
        Aggregate aggregate = Aggregate.SUM;
        boolean withScores;
        long limit;
    }

    private final int maxValueBytes;

    ZSetAlgebraApplier(int maxValueBytes) {
        this.maxValueBytes = maxValueBytes;
    }

    /** @param raw the op key's record as stored (a STORE form's destination), or null */
    OpResult apply(KvOp op, byte[] raw, KvView view, long nowMs) {
        PackedArgs parsed = PackedArgs.of(op, 1, maxValueBytes);
        if (parsed.error() != null) return parsed.error();
        List<byte[]> args = parsed.list();
        if (op.type() == KvOp.Type.ZRANGESTORE) return rangeStore(op, raw, args, view, nowMs);
        if (op.arg() < 1 || op.arg() > args.size()) {
            return OpResult.error(ErrorCode.PROTOCOL, op.type() + " names " + op.arg() + " keys but sends " + args.size() + " arguments");
        }
        int keyCount = (int) op.arg();
        ZSetSource[] sources = new ZSetSource[keyCount];
        for (int i = 0; i < keyCount; i++) {
            sources[i] = ZSetSource.open(op.bucket(), args.get(i), view, nowMs);
            if (sources[i] == null) return HashApplier.wrongType();
        }
        Options options = new Options();
        OpResult refused = parseOptions(op.type(), args.subList(keyCount, args.size()), sources, options);
        if (refused != null) return refused;
        boolean diff = op.type() == KvOp.Type.ZDIFF || op.type() == KvOp.Type.ZDIFFSTORE;
        if (!diff) Arrays.sort(sources, Comparator.comparingLong(ZSetSource::count));
        long walked = walkedElements(op.type(), sources);
        if (walked > MAX_INPUT_ELEMENTS) {
            return OpResult.error(ErrorCode.PROTOCOL, op.type() + " over more than " + MAX_INPUT_ELEMENTS
                    + " source elements is not supported by Cairn (it reads " + walked + ")");
        }
        return switch (op.type()) {
            case ZINTERCARD -> OpResult.integer(intersectionSize(sources, options.limit));
            case ZUNION, ZUNIONSTORE -> finish(op, raw, union(sources, options.aggregate), options, view);
            case ZINTER, ZINTERSTORE -> finish(op, raw, intersection(sources, options.aggregate), options, view);
            case ZDIFF, ZDIFFSTORE -> finish(op, raw, difference(sources), options, view);
            default -> throw new IllegalArgumentException(op.type() + " is not a sorted-set algebra command");
        };
    }

    /** Redis's option loop: WEIGHTS and AGGREGATE (not for ZDIFF or ZINTERCARD), WITHSCORES (not stored), LIMIT (ZINTERCARD). */
    private static OpResult parseOptions(KvOp.Type type, List<byte[]> opts, ZSetSource[] sources, Options out) {
        boolean weighted = type != KvOp.Type.ZDIFF && type != KvOp.Type.ZDIFFSTORE && type != KvOp.Type.ZINTERCARD;
        boolean replies = type == KvOp.Type.ZUNION || type == KvOp.Type.ZINTER || type == KvOp.Type.ZDIFF;
        int j = 0;
        while (j < opts.size()) {
            int remaining = opts.size() - j;
            if (weighted && remaining >= sources.length + 1 && is(opts.get(j), "weights")) {
                j++;
                for (ZSetSource source : sources) {
                    Double weight = ZSetMeta.parseScore(opts.get(j++));
                    if (weight == null) return OpResult.error(ErrorCode.NOT_FLOAT, "weight value is not a float");
                    source.weight = weight;
                }
            } else if (weighted && remaining >= 2 && is(opts.get(j), "aggregate")) {
                byte[] name = opts.get(j + 1);
                out.aggregate = is(name, "sum") ? Aggregate.SUM : is(name, "min") ? Aggregate.MIN : is(name, "max") ? Aggregate.MAX : null;
                if (out.aggregate == null) return OpResult.error(ErrorCode.SYNTAX, null);
                j += 2;
            } else if (replies && is(opts.get(j), "withscores")) {
                out.withScores = true;
                j++;
            } else if (type == KvOp.Type.ZINTERCARD && remaining >= 2 && is(opts.get(j), "limit")) {
                // Redis's getPositiveLongFromObjectOrReply gives its one text for a non-integer and a negative limit.
                Long limit = KvApplier.parseLong(opts.get(j + 1));
                if (limit == null || limit < 0) return OpResult.error(ErrorCode.NOT_INTEGER, "LIMIT can't be negative");
                out.limit = limit;
                j += 2;
            } else {
                return OpResult.error(ErrorCode.SYNTAX, null);
            }
        }
        return null;
    }

    private static boolean is(byte[] arg, String word) {
        return new String(arg, StandardCharsets.ISO_8859_1).equalsIgnoreCase(word);
    }

    private static long walkedElements(KvOp.Type type, ZSetSource[] sorted) {
        return switch (type) {
            case ZUNION, ZUNIONSTORE -> Arrays.stream(sorted).mapToLong(ZSetSource::count).sum();
            default -> sorted[0].count();
        };
    }

    /** Redis's zunionInterAggregate: a SUM that is NaN (inf + -inf) is 0; MIN and MAX ignore a NaN value. */
    private static double aggregate(double target, double value, Aggregate how) {
        return switch (how) {
            case SUM -> {
                double sum = target + value;
                yield Double.isNaN(sum) ? 0.0 : sum;
            }
            case MIN -> value < target ? value : target;
            case MAX -> value > target ? value : target;
        };
    }

    private static double weighted(ZSetSource source, double score) {
        double w = source.weight * score;
        return Double.isNaN(w) ? 0.0 : w;
    }

    private static List<ZSet.Entry> union(ZSetSource[] sources, Aggregate how) {
        Map<ByteBuffer, ZSet.Entry> accumulated = new HashMap<>();
        for (ZSetSource source : sources) {
            for (ZSet.Entry e : source.all()) {
                double score = weighted(source, e.score());
                accumulated.merge(ByteBuffer.wrap(e.member()), new ZSet.Entry(e.member(), score),
                        (old, fresh) -> new ZSet.Entry(old.member(), aggregate(old.score(), fresh.score(), how)));
            }
        }
        return new ArrayList<>(accumulated.values());
    }

    /** Walks the smallest source and looks each member up in the others, in size order, as Redis does. */
    private static List<ZSet.Entry> intersection(ZSetSource[] sources, Aggregate how) {
        List<ZSet.Entry> out = new ArrayList<>();
        if (sources[0].count() == 0) return out;
        for (ZSet.Entry e : sources[0].all()) {
            // Redis weighs the value found in a later source without its NaN-to-0 step: aggregate() decides.
            double score = weighted(sources[0], e.score());
            boolean everywhere = true;
            for (int i = 1; i < sources.length && everywhere; i++) {
                Double found = sources[i].find(e.member());
                if (found == null) everywhere = false;
                else score = aggregate(score, found * sources[i].weight, how);
            }
            if (everywhere) out.add(new ZSet.Entry(e.member(), score));
        }
        return out;
    }

    private static long intersectionSize(ZSetSource[] sources, long limit) {
        if (sources[0].count() == 0) return 0;
        long n = 0;
        for (ZSet.Entry e : sources[0].all()) {
            boolean everywhere = true;
            for (int i = 1; i < sources.length && everywhere; i++) everywhere = sources[i].find(e.member()) != null;
            if (everywhere && ++n == limit) break;
        }
        return n;
    }

    /** The first source's members found in none of the others, with the first source's scores (no weights). */
    private static List<ZSet.Entry> difference(ZSetSource[] sources) {
        List<ZSet.Entry> out = new ArrayList<>();
        for (ZSet.Entry e : sources[0].all()) {
            boolean elsewhere = false;
            for (int i = 1; i < sources.length && !elsewhere; i++) elsewhere = sources[i].find(e.member()) != null;
            if (!elsewhere) out.add(e);
        }
        return out;
    }

    /** The reply (members, with scores when asked) or, for a STORE form, the destination replaced. */
    private static OpResult finish(KvOp op, byte[] raw, List<ZSet.Entry> result, Options options, KvView view) {
        result.sort(ZSetAlgebraApplier::redisOrder);
        if (op.readOnly()) {
            List<byte[]> out = new ArrayList<>(result.size() * (options.withScores ? 2 : 1));
            for (ZSet.Entry e : result) {
                out.add(e.member());
                if (options.withScores) out.add(replyScore(e.score()).getBytes(StandardCharsets.US_ASCII));
            }
            return OpResult.array(out);
        }
        return store(op.bucket(), op.key(), raw, result, view);
    }

    /** Redis replies a computed -0 (a weight of -1 or 0 times a score) as "-0"; a stored one reads back as 0. */
    private static String replyScore(double score) {
        return score == 0.0 && Double.doubleToRawLongBits(score) != 0 ? "-0" : ZSetMeta.format(score);
    }

    /** A skiplist's order: by score (-0 equal to 0), then by member bytes. */
    private static int redisOrder(ZSet.Entry a, ZSet.Entry b) {
        if (a.score() < b.score()) return -1;
        if (a.score() > b.score()) return 1;
        return Arrays.compareUnsigned(a.member(), b.member());
    }

    /**
     * Replaces whatever {@code key} held (any type, any expiry: Redis's setKey drops it) with a sorted
     * set of {@code entries}; an empty result deletes the key. Answers the new size.
     */
    static OpResult store(int bucket, byte[] key, byte[] raw, List<ZSet.Entry> entries, KvView view) {
        if (raw != null) KvApplier.deleteRecord(bucket, key, raw, view);
        for (ZSet.Entry e : entries) {
            // A computed -0 is stored as 0: redis-server's stored result reads back as 0 (its listpack form).
            double score = e.score() == 0.0 ? 0.0 : e.score();
            view.putField(bucket, key, ZSetMeta.memberField(e.member()), ZSetMeta.scoreBytes(score));
            view.putField(bucket, key, ZSetMeta.scoreField(score, e.member()), new byte[0]);
        }
        if (!entries.isEmpty()) view.put(bucket, key, CollectionMeta.encode(StoredValue.TYPE_ZSET, entries.size(), 0));
        return OpResult.integer(entries.size());
    }

    /** ZRANGESTORE: ZRANGE's selection (its arguments checked by the router as Redis does before the lookup) stored. */
    private static OpResult rangeStore(KvOp op, byte[] raw, List<byte[]> args, KvView view, long nowMs) {
        boolean byValue = op.has(KvOp.FLAG_BYSCORE) || op.has(KvOp.FLAG_BYLEX);
        if (args.size() != (byValue ? 5 : 3)) {
            return OpResult.error(ErrorCode.PROTOCOL, "ZRANGESTORE needs " + (byValue ? 5 : 3) + " arguments, got " + args.size());
        }
        byte[] sourceKey = args.get(0);
        byte[] sourceRaw = view.get(op.bucket(), sourceKey);
        byte[] source = sourceRaw == null || StoredValue.isExpired(sourceRaw, nowMs) ? null : sourceRaw;
        if (source != null && !ZSetMeta.isZSet(source)) return HashApplier.wrongType();
        ZSet z = new ZSet(op.bucket(), sourceKey, sourceRaw, source, view);
        // BYSCORE and BYLEX gather their matches in memory before LIMIT applies: the same bound as the algebra.
        if (z.count > MAX_INPUT_ELEMENTS) {
            return OpResult.error(ErrorCode.PROTOCOL, "ZRANGESTORE from a sorted set of more than " + MAX_INPUT_ELEMENTS
                    + " members is not supported by Cairn");
        }
        OpResult[] error = new OpResult[1];
        List<ZSet.Entry> selected = ZSetApplier.select(op, z, args.subList(1, args.size()), error);
        if (selected == null) return error[0];
        return store(op.bucket(), op.key(), raw, new ArrayList<>(selected), view);
    }
}
