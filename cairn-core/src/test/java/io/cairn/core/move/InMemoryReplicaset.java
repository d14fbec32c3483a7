package io.cairn.core.move;

import io.cairn.core.BucketRecord;
import io.cairn.core.move.MoveQuery.BucketDigest;
import io.cairn.core.move.MoveQuery.ChangesPage;
import io.cairn.core.move.MoveQuery.ChunkPage;
import io.cairn.core.move.MoveQuery.MoveStatus;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * One replicaset's state for unit tests and the simulator (cairn-sim extends it): bucket records,
 * receive progress, per-bucket data and the keys marked as changed during a copy ahead, changed
 * only through {@link BucketLedger} (plus {@link #bootstrap}, {@link #write} and {@link #delete}).
 * The queries are answered by cairn-core's {@link MoveAnswers}, as a storage member answers them, and
 * writes mark changes as its BatchView does.
 */
public class InMemoryReplicaset implements BucketLedger.Store, MoveAnswers.BucketData {
    public final String id;
    final Map<Integer, BucketRecord> records = new TreeMap<>();
    final Map<Integer, ReceiveProgress> progress = new HashMap<>();
    final Map<Integer, TreeMap<byte[], byte[]>> data = new HashMap<>();
    final Map<Integer, TreeSet<byte[]>> changed = new HashMap<>();
    /** Archive pointers, replicated with the records (in {@link #snapshot()}). */
    final Map<Integer, ArchivePointer> archivePointers = new HashMap<>();
    long bsn;
    /** Every record stored, in order, to check BSNs. */
    final List<BucketRecord> puts = new ArrayList<>();

    public InMemoryReplicaset(String id) {
        this.id = id;
    }

    /** Called after every change of a bucket's record, progress or data; the simulator checks its invariants there. */
    protected void changed(int bucket) {}

    public static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    public MoveReply apply(MoveCommand command) {
        return BucketLedger.apply(command, this);
    }

    /** Creates {@code bucket} ACTIVE at {@code generation} holding {@code keys} keys k0..k(n-1). */
    public InMemoryReplicaset bootstrap(int bucket, long generation, int keys) {
        put(new BucketRecord(bucket, io.cairn.core.BucketState.ACTIVE, generation, 0, "", 0));
        for (int k = 0; k < keys; k++) putData(bucket, new ChunkEntry(bytes("k" + k), bytes("v" + k)));
        return this;
    }

    /** A client write: applied only while the bucket's record serves writes. */
    public boolean write(int bucket, String key, String value) {
        if (!servesWrites(bucket)) return false;
        putData(bucket, new ChunkEntry(bytes(key), bytes(value)));
        return true;
    }

    /** A client delete: applied only while the bucket's record serves writes. */
    public boolean delete(int bucket, String key) {
        if (!servesWrites(bucket)) return false;
        deleteData(bucket, bytes(key));
        return true;
    }

    /** As a storage member: an archived bucket (or one being archived) refuses writes, its data is in its object. */
    private boolean servesWrites(int bucket) {
        BucketRecord r = records.get(bucket);
        return r != null && r.state().servesWrites() && !r.isArchivedOrArchiving();
    }

    public Collection<BucketRecord> records() {
        return records.values();
    }

    public long bsn() {
        return bsn;
    }

    public TreeMap<byte[], byte[]> keys(int bucket) {
        return data.getOrDefault(bucket, new TreeMap<>(Arrays::compareUnsigned));
    }

    public ChunkPage readChunk(MoveQuery.ReadChunk q) {
        return MoveAnswers.readChunk(q, this);
    }

    /** Keys in the first page of changes SendCopied answers with; 0: answer none (the driver queries them). */
    public int changesInReply = 3;

    @Override
    public ChangesPage changes(int bucket, long generation) {
        return changesInReply == 0 ? null
                : readChanges(new MoveQuery.ReadChanges(bucket, generation, new byte[0], changesInReply, 1 << 20));
    }

    public ChangesPage readChanges(MoveQuery.ReadChanges q) {
        return MoveAnswers.readChanges(q, this);
    }

    public BucketDigest digest(int bucket) {
        return MoveAnswers.digest(bucket, this);
    }

    public List<MoveQuery.BucketReport> inspect(MoveQuery.Inspect q) {
        return MoveAnswers.inspect(q.buckets(), q.withCounts(), this);
    }

    public ChunkPage exportChunk(MoveQuery.ExportChunk q) {
        return MoveAnswers.exportChunk(q, this);
    }

    public MoveStatus status(int maxCandidates) {
        return MoveStatus.of(records.values(), maxCandidates);
    }

    // ---- MoveAnswers.BucketData: the same answers a storage member gives ----

    @Override
    public void forEachEntry(int bucket, byte[] afterKey, Predicate<ChunkEntry> visitor) {
        TreeMap<byte[], byte[]> keys = keys(bucket);
        for (var e : (afterKey.length == 0 ? keys : keys.tailMap(afterKey, false)).entrySet()) {
            if (!visitor.test(new ChunkEntry(e.getKey(), e.getValue()))) return;
        }
    }

    @Override
    public void forEachChanged(int bucket, byte[] afterKey, Predicate<byte[]> visitor) {
        TreeSet<byte[]> keys = changed.getOrDefault(bucket, new TreeSet<>(Arrays::compareUnsigned));
        for (byte[] key : afterKey.length == 0 ? keys : keys.tailSet(afterKey, false)) {
            if (!visitor.test(key)) return;
        }
    }

    @Override
    public byte[] moveForm(int bucket, byte[] key) {
        return keys(bucket).get(key);
    }

    @Override
    public long countKeys(int bucket) {
        return keys(bucket).size();
    }

    /** Writes are not stamped here. */
    @Override
    public long lastWriteMs(int bucket) {
        return -1;
    }

    // ---- BucketLedger.Store ----

    @Override
    public BucketRecord record(int bucket) {
        return records.get(bucket);
    }

    @Override
    public BucketRecord put(BucketRecord withoutBsn) {
        BucketRecord r = new BucketRecord(withoutBsn.id(), withoutBsn.state(), withoutBsn.generation(), ++bsn,
                withoutBsn.peer(), withoutBsn.flags());
        records.put(r.id(), r);
        puts.add(r);
        changed(r.id());
        return r;
    }

    @Override
    public ReceiveProgress progress(int bucket) {
        return progress.get(bucket);
    }

    @Override
    public void putProgress(int bucket, ReceiveProgress p) {
        progress.put(bucket, p);
        changed(bucket);
    }

    @Override
    public void clearProgress(int bucket) {
        progress.remove(bucket);
        changed(bucket);
    }

    @Override
    public byte[] putData(int bucket, ChunkEntry entry) {
        markChanged(bucket, entry.key());
        byte[] old = data.computeIfAbsent(bucket, b -> new TreeMap<>(Arrays::compareUnsigned)).put(entry.key(), entry.stored());
        changed(bucket);
        return old;
    }

    @Override
    public byte[] deleteData(int bucket, byte[] key) {
        TreeMap<byte[], byte[]> keys = data.get(bucket);
        byte[] old = keys == null ? null : keys.remove(key);
        if (old != null) markChanged(bucket, key);
        changed(bucket);
        return old;
    }

    @Override
    public void dropData(int bucket) {
        for (byte[] key : keys(bucket).keySet()) markChanged(bucket, key);
        data.remove(bucket);
        changed(bucket);
    }

    @Override
    public void clearChanges(int bucket) {
        changed.remove(bucket);
    }

    private void markChanged(int bucket, byte[] key) {
        BucketRecord r = records.get(bucket);
        if (r != null && r.marksChanges()) changed.computeIfAbsent(bucket, b -> new TreeSet<>(Arrays::compareUnsigned)).add(key);
    }

    /** The stamp of the next applied command (tests move it forward). */
    long nowMs;
    final Map<Integer, Long> quarantinedAt = new HashMap<>();

    @Override
    public long nowMs() {
        return nowMs;
    }

    @Override
    public ArchivePointer archivePointer(int bucket) {
        return archivePointers.get(bucket);
    }

    @Override
    public void putArchivePointer(int bucket, ArchivePointer pointer) {
        archivePointers.put(bucket, pointer);
    }

    @Override
    public void clearArchivePointer(int bucket) {
        archivePointers.remove(bucket);
    }

    @Override
    public long quarantinedAtMs(int bucket) {
        return quarantinedAt.getOrDefault(bucket, -1L);
    }

    @Override
    public void putQuarantinedAt(int bucket, long stampMs) {
        quarantinedAt.put(bucket, stampMs);
    }

    // ---- snapshot ----

    /**
     * The whole state as bytes, in a fixed order (records with cairn-core's discovery record
     * encoding, progress with {@link ReceiveProgress#encode}), like a checkpoint of a storage member's
     * database: {@link #restore} on an empty replicaset rebuilds it, and two replicasets in the same
     * state have equal snapshots, which is how the simulator compares its members.
     */
    public byte[] snapshot() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeLong(bsn);
            out.writeInt(records.size());
            for (BucketRecord r : records.values()) writeBytes(out, io.cairn.core.wire.DiscoveryPage.encodeRecord(r));
            TreeMap<Integer, ReceiveProgress> sortedProgress = new TreeMap<>(progress);
            out.writeInt(sortedProgress.size());
            for (var e : sortedProgress.entrySet()) {
                out.writeInt(e.getKey());
                out.write(e.getValue().encode());
            }
            TreeMap<Integer, TreeMap<byte[], byte[]>> sortedData = new TreeMap<>(data);
            out.writeInt(sortedData.size());
            for (var e : sortedData.entrySet()) {
                out.writeInt(e.getKey());
                out.writeInt(e.getValue().size());
                for (var kv : e.getValue().entrySet()) {
                    writeBytes(out, kv.getKey());
                    writeBytes(out, kv.getValue());
                }
            }
            TreeMap<Integer, TreeSet<byte[]>> sortedChanged = new TreeMap<>(changed);
            out.writeInt(sortedChanged.size());
            for (var e : sortedChanged.entrySet()) {
                out.writeInt(e.getKey());
                out.writeInt(e.getValue().size());
                for (byte[] key : e.getValue()) writeBytes(out, key);
            }
            TreeMap<Integer, Long> sortedQuarantine = new TreeMap<>(quarantinedAt);
            out.writeInt(sortedQuarantine.size());
            for (var e : sortedQuarantine.entrySet()) {
                out.writeInt(e.getKey());
                out.writeLong(e.getValue());
            }
            TreeMap<Integer, ArchivePointer> sortedPointers = new TreeMap<>(archivePointers);
            out.writeInt(sortedPointers.size());
            for (var e : sortedPointers.entrySet()) {
                out.writeInt(e.getKey());
                writeBytes(out, e.getValue().encode());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** Replaces the whole state with a {@link #snapshot}'s (nothing of the old state stays). */
    public void restore(byte[] snapshot) {
        records.clear();
        progress.clear();
        data.clear();
        changed.clear();
        quarantinedAt.clear();
        archivePointers.clear();
        puts.clear();
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(snapshot))) {
            bsn = in.readLong();
            for (int n = in.readInt(); n > 0; n--) {
                BucketRecord r = io.cairn.core.wire.DiscoveryPage.decodeRecord(java.nio.ByteBuffer.wrap(readBytes(in)));
                records.put(r.id(), r);
            }
            for (int n = in.readInt(); n > 0; n--) {
                int bucket = in.readInt();
                byte[] p = new byte[ReceiveProgress.ENCODED_BYTES];
                in.readFully(p);
                progress.put(bucket, ReceiveProgress.decode(p));
            }
            for (int n = in.readInt(); n > 0; n--) {
                TreeMap<byte[], byte[]> keys = data.computeIfAbsent(in.readInt(), b -> new TreeMap<>(Arrays::compareUnsigned));
                for (int k = in.readInt(); k > 0; k--) keys.put(readBytes(in), readBytes(in));
            }
            for (int n = in.readInt(); n > 0; n--) {
                TreeSet<byte[]> keys = changed.computeIfAbsent(in.readInt(), b -> new TreeSet<>(Arrays::compareUnsigned));
                for (int k = in.readInt(); k > 0; k--) keys.add(readBytes(in));
            }
            for (int n = in.readInt(); n > 0; n--) quarantinedAt.put(in.readInt(), in.readLong());
            for (int n = in.readInt(); n > 0; n--) archivePointers.put(in.readInt(), ArchivePointer.decode(readBytes(in)));
            if (in.available() != 0) throw new IllegalArgumentException(in.available() + " bytes left after the snapshot");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
        out.writeInt(b.length);
        out.write(b);
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        byte[] b = new byte[in.readInt()];
        in.readFully(b);
        return b;
    }
}
