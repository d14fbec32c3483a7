package io.cairn.core.move;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A synchronous {@link MovePort} over {@link InMemoryReplicaset}s: a request is applied and
 * answered at once, except the call numbers listed in {@link #dropReplyOfCall}, which are
 * applied but answered with null (a lost reply). {@code after} tasks run from {@link #runTimers}.
 */
final class FakeMovePort implements MovePort {
    final Map<String, InMemoryReplicaset> replicasets = new LinkedHashMap<>();
    final List<String> calls = new ArrayList<>();
    final ArrayDeque<Runnable> timers = new ArrayDeque<>();
    int dropReplyOfCall = -1;
    int dropRequestOfCall = -1;
    /** Answers a submitted command without applying it when this returns a reply (null: apply as usual). */
    java.util.function.Function<MoveCommand, MoveReply> intercept = c -> null;
    /** Calls (as recorded in {@link #calls}) whose answer never comes: applied, and then nothing. */
    java.util.function.Predicate<String> swallow = c -> false;
    /** Added to the clock, to let time pass without calls. */
    long extraMs;
    /** Told of every call (as recorded in {@link #calls}) before it reaches its replicaset, e.g. to write in between. */
    Consumer<String> beforeCall = c -> { };

    FakeMovePort(InMemoryReplicaset... sets) {
        for (InMemoryReplicaset rs : sets) replicasets.put(rs.id, rs);
    }

    private <T> void call(String what, Supplier<T> apply, Consumer<T> reply) {
        int n = calls.size();
        beforeCall.accept(what);
        calls.add(what);
        if (n == dropRequestOfCall) { reply.accept(null); return; }
        T answer = apply.get();
        if (swallow.test(what)) return;
        reply.accept(n == dropReplyOfCall ? null : answer);
    }

    @Override
    public void submit(String replicaset, MoveCommand command, Consumer<MoveReply> reply) {
        MoveReply instead = intercept.apply(command);
        call(command.getClass().getSimpleName() + "@" + replicaset,
                () -> instead != null ? instead : replicasets.get(replicaset).apply(command), reply);
    }

    @Override
    public void readChunk(String replicaset, MoveQuery.ReadChunk query, Consumer<MoveQuery.ChunkPage> reply) {
        call("ReadChunk@" + replicaset, () -> replicasets.get(replicaset).readChunk(query), reply);
    }

    @Override
    public void readChanges(String replicaset, MoveQuery.ReadChanges query, Consumer<MoveQuery.ChangesPage> reply) {
        call("ReadChanges@" + replicaset, () -> replicasets.get(replicaset).readChanges(query), reply);
    }

    @Override
    public void digest(String replicaset, int bucket, Consumer<MoveQuery.BucketDigest> reply) {
        call("Digest@" + replicaset, () -> replicasets.get(replicaset).digest(bucket), reply);
    }

    @Override
    public void status(String replicaset, int maxCandidates, Consumer<MoveQuery.MoveStatus> reply) {
        call("Status@" + replicaset, () -> replicasets.get(replicaset).status(maxCandidates), reply);
    }

    @Override
    public void inspect(String replicaset, MoveQuery.Inspect query, Consumer<List<MoveQuery.BucketReport>> reply) {
        call("Inspect@" + replicaset, () -> {
            InMemoryReplicaset rs = replicasets.get(replicaset);
            List<MoveQuery.BucketReport> out = new ArrayList<>();
            for (var r : rs.records.values()) {
                boolean wanted = query.buckets().isEmpty() ? r.has(io.cairn.core.BucketRecord.FLAG_DOUBLED) : query.buckets().contains(r.id());
                if (wanted) out.add(new MoveQuery.BucketReport(r, query.withCounts() ? rs.keys(r.id()).size() : -1, -1));
            }
            return out;
        }, reply);
    }

    /** The object store of archive moves: object key -> the pointer it was written with. */
    final Map<String, ArchivePointer> objects = new LinkedHashMap<>();

    /** Copies as {@code DataPlaneMovePort} does: the source's record decides, the copy lands under "<destination>/". */
    @Override
    public void copyArchive(String source, String destination, int bucket, long generation, Consumer<ArchiveCopy> reply) {
        call("CopyArchive@" + source, () -> {
            InMemoryReplicaset rs = replicasets.get(source);
            ArchivePointer p = rs.archivePointer(bucket);
            String refusal = ArchiveMoves.copyRefusal(rs.record(bucket), p, destination, generation);
            if (refusal != null) return ArchiveCopy.refused(refusal);
            if (!objects.containsKey(p.objectKey())) return ArchiveCopy.refused("OBJECT_NOT_FOUND " + p.objectKey());
            String key = destination + "/" + p.objectKey().substring(p.objectKey().indexOf('/') + 1);
            ArchivePointer copy = new ArchivePointer(key, p.generation(), p.keyCount(), p.byteCount(), p.sizeBytes(), p.contentHash());
            objects.put(key, copy);
            return new ArchiveCopy(copy, "");
        }, reply);
    }

    @Override
    public void archiveDurable(String replicaset, int bucket, long generation, Consumer<Durability> reply) {
        call("Durable@" + replicaset, () -> {
            InMemoryReplicaset rs = replicasets.get(replicaset);
            ArchivePointer p = rs.archivePointer(bucket);
            boolean there = p != null && objects.containsKey(p.objectKey());
            return ArchiveMoves.durability(rs.record(bucket), generation, there);
        }, reply);
    }

    @Override
    public void deleteArchive(String objectKey) {
        calls.add("DeleteArchive " + objectKey);
        objects.remove(objectKey);
    }

    @Override
    public void after(long delayMs, Runnable task) {
        timers.add(task);
    }

    /** Each call takes a millisecond here: the clock reads the number of calls made. */
    @Override
    public long nowMs() {
        return calls.size() + extraMs;
    }

    /** Runs pending timers (and the ones they add), at most {@code limit}. */
    void runTimers(int limit) {
        for (int i = 0; i < limit && !timers.isEmpty(); i++) timers.poll().run();
    }
}
