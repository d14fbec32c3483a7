package io.cairn.core.kv;

import java.util.ArrayList;
import java.util.List;

/** One sorted set being read or changed (see {@link CollectionState}); two entries per member ({@link ZSetMeta}). */
final class ZSet extends CollectionState {
    record Entry(byte[] member, double score) {}

    ZSet(int bucket, byte[] key, byte[] raw, byte[] stored, KvView view) {
        super(bucket, key, raw, stored, view);
    }

    @Override
    byte[] meta(long expireAtMs) {
        return CollectionMeta.encode(StoredValue.TYPE_ZSET, count, expireAtMs);
    }

    Double score(byte[] member) {
        if (count == 0) return null;
        byte[] v = view.getField(bucket, key, ZSetMeta.memberField(member));
        return v == null ? null : ZSetMeta.score(v);
    }

    /** Every member in (score, member) order. */
    List<Entry> ordered() {
        return byRank(0, count);
    }

    /** {@code n} members from rank {@code rank}: the score index starts after the {@code count} member entries. */
    List<Entry> byRank(long rank, long n) {
        List<Entry> out = new ArrayList<>();
        if (count == 0 || n <= 0) return out;
        for (KvView.Field f : view.fields(bucket, key, count + rank, (int) Math.min(n, Integer.MAX_VALUE))) {
            out.add(new Entry(ZSetMeta.memberOfScoreField(f.name()), ZSetMeta.scoreOfScoreField(f.name())));
        }
        return out;
    }

    /**
     * Members whose score is at least {@code min}, in (score, member) order, while {@code visitor}
     * returns true: a seek to min's place in the score index, then pages of {@code pageSize}.
     */
    void forEachFrom(double min, int pageSize, java.util.function.Predicate<Entry> visitor) {
        if (count == 0) return;
        byte[] from = ZSetMeta.scoreField(min, new byte[0]);
        while (true) {
            List<KvView.Field> page = view.fieldsFrom(bucket, key, from, pageSize);
            for (KvView.Field f : page) {
                if (f.name()[0] != ZSetMeta.SCORE) return;
                if (!visitor.test(new Entry(ZSetMeta.memberOfScoreField(f.name()), ZSetMeta.scoreOfScoreField(f.name())))) return;
            }
            if (page.size() < pageSize) return;
            byte[] last = page.get(page.size() - 1).name();
            from = java.util.Arrays.copyOf(last, last.length + 1); // the smallest name after the last one read
        }
    }

    /** {@code n} members from position {@code from} in member (byte) order, with their scores. */
    List<Entry> byMember(long from, int n) {
        List<Entry> out = new ArrayList<>();
        if (count == 0 || from >= count) return out;
        for (KvView.Field f : view.fields(bucket, key, from, (int) Math.min(n, count - from))) {
            out.add(new Entry(java.util.Arrays.copyOfRange(f.name(), 1, f.name().length), ZSetMeta.score(f.value())));
        }
        return out;
    }

    /** Sets {@code member}'s score; {@code current} is its score now, null when it is new. */
    void put(byte[] member, double score, Double current) {
        beforeWrite();
        if (current != null) view.deleteField(bucket, key, ZSetMeta.scoreField(current, member));
        else count++;
        view.putField(bucket, key, ZSetMeta.memberField(member), ZSetMeta.scoreBytes(score));
        view.putField(bucket, key, ZSetMeta.scoreField(score, member), new byte[0]);
    }

    boolean remove(byte[] member) {
        Double current = score(member);
        if (current == null) return false;
        view.deleteField(bucket, key, ZSetMeta.memberField(member));
        view.deleteField(bucket, key, ZSetMeta.scoreField(current, member));
        count--;
        afterDelete();
        return true;
    }
}
