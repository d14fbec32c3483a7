package io.cairn.core.kv;

import java.util.ArrayList;
import java.util.List;

/** One list being read or changed (see {@link CollectionState}); element i is the entry at head + i ({@link ListMeta}). */
final class ListState extends CollectionState {
    long head;

    ListState(int bucket, byte[] key, byte[] raw, byte[] stored, KvView view) {
        super(bucket, key, raw, stored, view);
        this.head = stored != null ? ListMeta.head(stored) : 0;
    }

    @Override
    byte[] meta(long expireAtMs) {
        return ListMeta.encode(count, head, expireAtMs);
    }

    boolean exists() {
        return count > 0;
    }

    /** Redis's negative indexes count from the end. */
    long normalize(long index) {
        return index < 0 ? count + index : index;
    }

    byte[] get(long index) {
        return view.getField(bucket, key, ListMeta.seqField(head + index));
    }

    /** {@code n} elements from {@code index}: one pass over their range of the field prefix. */
    List<byte[]> slice(long index, long n) {
        List<byte[]> out = new ArrayList<>((int) Math.min(n, 1 << 16));
        for (KvView.Field f : view.fields(bucket, key, index, (int) Math.min(n, Integer.MAX_VALUE))) out.add(f.value());
        return out;
    }

    List<byte[]> all() {
        return slice(0, count);
    }

    void set(long index, byte[] element) {
        write(head + index, element);
    }

    void pushLeft(byte[] element) {
        head--;
        write(head, element);
        count++;
    }

    void pushRight(byte[] element) {
        write(head + count, element);
        count++;
    }

    byte[] popLeft() {
        byte[] e = get(0);
        erase(head);
        head++;
        count--;
        return e;
    }

    byte[] popRight() {
        byte[] e = get(count - 1);
        erase(head + count - 1);
        count--;
        return e;
    }

    /** Puts {@code element} at {@code index} of {@code all} (the current elements), moving the shorter side by one. */
    void insert(List<byte[]> all, int index, byte[] element) {
        if (index <= all.size() / 2) {
            head--;
            for (int i = 0; i < index; i++) write(head + i, all.get(i));
        } else {
            for (int i = all.size() - 1; i >= index; i--) write(head + i + 1, all.get(i));
        }
        write(head + index, element);
        count++;
    }

    /** Makes the list {@code kept}, which equals the current one before {@code from}: rewrites from there, drops the tail. */
    void rewriteFrom(int from, List<byte[]> kept) {
        for (int i = from; i < kept.size(); i++) write(head + i, kept.get(i));
        for (long i = kept.size(); i < count; i++) erase(head + i);
        count = kept.size();
    }

    private void write(long seq, byte[] element) {
        beforeWrite();
        view.putField(bucket, key, ListMeta.seqField(seq), element);
    }

    private void erase(long seq) {
        view.deleteField(bucket, key, ListMeta.seqField(seq));
        afterDelete();
    }
}
