package io.cairn.sim;

import io.cairn.archive.InMemoryObjectStore;
import io.cairn.archive.ObjectBody;
import io.cairn.core.BucketRecord;
import io.cairn.core.move.ArchiveMoves;
import io.cairn.core.move.ArchivePointer;
import io.cairn.core.move.ChunkEntry;
import io.cairn.core.move.MoveCodec;
import io.cairn.core.move.MovePort;
import io.cairn.core.move.MoveQuery;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The archive tier in the simulation (issue 23): one {@link InMemoryObjectStore} on the virtual
 * clock, buckets archived at bootstrap (their keys in an object, the record archived, the pointer
 * replicated), and the mover's three archive calls as {@code DataPlaneMovePort} makes them: the
 * replicaset's record and pointer read through the faulty network, the store call at the answer.
 * Its fault: while chaos lasts, a durable check may find that someone deleted the destination's
 * object behind its back (the driver must copy it again before the source drops its own).
 */
final class SimArchive {
    private final InMemoryObjectStore store;
    private final Random random;
    private final BooleanSupplier chaos;
    private final double lossRate;
    private long objectsLost;
    private long copies;

    private final Map<String, SimReplicaset> replicasets;
    /**
     * Objects a durable check answered DURABLE for: never lost afterwards. A source may drop its own on
     * that answer (another driver's DropData may be in flight), so losing it then is the store's
     * durability failing, which no move protocol survives.
     */
    private final java.util.Set<String> acknowledged = new java.util.HashSet<>();

    SimArchive(SimScheduler scheduler, Random random, BooleanSupplier chaos, Map<String, SimReplicaset> replicasets) {
        this.store = new InMemoryObjectStore(scheduler::nowMs);
        this.replicasets = replicasets;
        this.random = random;
        this.chaos = chaos;
        this.lossRate = random.nextInt(3) == 0 ? 0 : random.nextDouble() * 0.3;
    }

    long objectsLost() {
        return objectsLost;
    }

    /** Server-side copies made for moves of archived buckets. */
    long copies() {
        return copies;
    }

    /** Bootstrap: {@code bucket}'s keys on {@code rs} go to one object; the record becomes archived and keeps its pointer. */
    void archiveAtBootstrap(SimReplicaset rs, int bucket) {
        List<ChunkEntry> entries = rs.keys(bucket).entrySet().stream().map(e -> new ChunkEntry(e.getKey(), e.getValue())).toList();
        byte[] body = MoveCodec.encode(new MoveQuery.ChunkPage(entries, true, ""));
        BucketRecord r = rs.record(bucket);
        String key = "cairn/" + rs.id + "/buckets/" + bucket + "/" + r.generation() + "-h" + bucket;
        store.put(key, ObjectBody.of(body), Map.of());
        rs.putArchivePointer(bucket, new ArchivePointer(key, r.generation(), entries.size(), 0, body.length, "h" + bucket));
        rs.dropData(bucket);
        rs.force(new BucketRecord(bucket, r.state(), r.generation(), 0, r.peer(), r.flags() | BucketRecord.FLAG_ARCHIVED));
    }

    /** The keys in {@code pointer}'s object, or null when the object is gone. */
    TreeMap<byte[], byte[]> contents(ArchivePointer pointer) {
        if (pointer == null || store.head(pointer.objectKey()).isEmpty()) return null;
        byte[] body;
        try (InputStream in = store.get(pointer.objectKey())) {
            body = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        TreeMap<byte[], byte[]> keys = new TreeMap<>(Arrays::compareUnsigned);
        for (ChunkEntry e : MoveCodec.decodeChunkPage(ByteBuffer.wrap(body)).entries()) keys.put(e.key(), e.stored());
        return keys;
    }

    private static MoveQuery.ArchiveState stateOf(io.cairn.core.move.InMemoryReplicaset rs, int bucket) {
        return new MoveQuery.ArchiveState(rs.record(bucket), rs.archivePointer(bucket));
    }

    void copy(SimNetwork network, String from, String source, String destination, int bucket, long generation,
              Consumer<MovePort.ArchiveCopy> reply, BooleanSupplier alive) {
        network.query(from, source, from + " ArchiveOf(" + bucket + ") to " + source + " for a copy", rs -> stateOf(rs, bucket), state -> {
            if (state == null) { reply.accept(null); return; }
            String refusal = ArchiveMoves.copyRefusal(state.record(), state.pointer(), destination, generation);
            if (refusal != null) { reply.accept(MovePort.ArchiveCopy.refused(refusal)); return; }
            ArchivePointer p = state.pointer();
            if (store.head(p.objectKey()).isEmpty()) { reply.accept(MovePort.ArchiveCopy.refused("OBJECT_NOT_FOUND " + p.objectKey())); return; }
            String key = "cairn/" + destination + p.objectKey().substring(p.objectKey().indexOf("/buckets/"));
            store.copy(p.objectKey(), key);
            copies++;
            reply.accept(new MovePort.ArchiveCopy(new ArchivePointer(key, p.generation(), p.keyCount(), p.byteCount(), p.sizeBytes(),
                    p.contentHash()), ""));
        }, alive);
    }

    void durable(SimNetwork network, String from, String replicaset, int bucket, long generation, Consumer<MovePort.Durability> reply,
                 BooleanSupplier alive) {
        network.query(from, replicaset, from + " ArchiveOf(" + bucket + ") to " + replicaset + " for a durable check", rs -> stateOf(rs, bucket),
                state -> {
                    if (state == null) { reply.accept(null); return; }
                    boolean needsHead = ArchiveMoves.needsHead(state.record(), generation);
                    ArchivePointer p = state.pointer();
                    if (needsHead && p != null && chaos.getAsBoolean() && !acknowledged.contains(p.objectKey())
                            && sourceKeepsItsObject(state.record()) && random.nextDouble() < lossRate) {
                        store.delete(p.objectKey()); // behind the destination's back
                        objectsLost++;
                    }
                    boolean present = p != null && store.head(p.objectKey()).isPresent();
                    MovePort.Durability answer = ArchiveMoves.durability(state.record(), generation, present);
                    if (needsHead && answer == MovePort.Durability.DURABLE) acknowledged.add(p.objectKey());
                    reply.accept(answer);
                }, alive);
    }

    /**
     * The fault is an object lost mid-move, while its source still keeps its own (SENDING or SENT,
     * not dropped, archived, its object there): a loss after the source's drop is no protocol's to
     * survive, the store's durability is.
     */
    private boolean sourceKeepsItsObject(BucketRecord destination) {
        SimReplicaset source = replicasets.get(destination.peer());
        BucketRecord s = source == null ? null : source.record(destination.id());
        return s != null && s.generation() == destination.generation() && s.isArchived() && !s.has(BucketRecord.FLAG_DATA_DROPPED)
                && contents(source.archivePointer(destination.id())) != null;
    }

    void delete(String objectKey) {
        store.delete(objectKey);
    }
}
