package io.cairn.router.resp;

import io.cairn.core.BucketHasher;
import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;
import io.cairn.core.wire.KeyPage;
import io.cairn.router.KvBackend;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * MULTI, EXEC and DISCARD (issue 24): a transaction is atomic when every key it names is in one
 * bucket (a hash tag), as Redis Cluster needs them in one slot; a command naming a key of another
 * bucket is refused when queued ({@code CROSSSLOT}) and EXEC then aborts, as Redis does after an error
 * in the queue. EXEC runs the queued commands' own handlers with a {@link Recording} backend in
 * front of the real one: the operations each command would send are collected, sent as ONE call
 * (one unit of one Raft entry: applied in order, all or nothing visible to readers), and each
 * command's reply is built from its share of the results. A runtime error (WRONGTYPE) is that
 * command's reply and the others still apply, as in Redis. Commands that read the whole keyspace
 * (DBSIZE, KEYS, SCAN, FLUSHALL) cannot join the unit and answer an error inside EXEC.
 *
 * <p>WATCH reads the version of the watched keys' bucket (it changes with every Raft entry that writes
 * to the bucket, and differs on any other replicaset); EXEC then sends a TX_GUARD first in its unit, and
 * storage applies the transaction only if the bucket is still at that version, else EXEC answers nil.
 * So a write to any key of that bucket aborts the transaction, not only one to a watched key: never a
 * change missed, sometimes a retry more than Redis would ask for. Watched keys and the transaction's
 * keys must share one bucket, as in Redis Cluster.
 */
final class Transactions {
    /** Commands that act on the transaction itself and run even while one is queued. */
    private static final Set<String> CONTROL = Set.of("multi", "exec", "discard", "watch", "unwatch", "quit");
    private static final RedisMessage QUEUED = new io.netty.handler.codec.redis.SimpleStringRedisMessage("QUEUED");

    /** The bucket a connection watches and the version it had when WATCH read it. */
    record Watch(int bucket, long version) {}

    /** The queue of one connection between MULTI and EXEC or DISCARD. */
    static final class Queue {
        private final List<CommandArgs> commands = new ArrayList<>();
        private final List<CommandSpec> specs = new ArrayList<>();
        private int bucket = -1;
        private boolean failed;
    }

    private final Recording recording;
    private final int bucketCount;

    Transactions(Recording recording) {
        this.recording = recording;
        this.bucketCount = recording.bucketCount();
    }

    List<CommandSpec> specs() {
        return List.of(
                new CommandSpec("multi", 1, List.of("noscript", "loading", "stale", "fast"), 0, 0, 0, (a, s) -> multi(s)),
                new CommandSpec("discard", 1, List.of("noscript", "loading", "stale", "fast"), 0, 0, 0, (a, s) -> discard(s)),
                new CommandSpec("watch", -2, List.of("noscript", "loading", "stale", "fast"), 1, -1, 1, this::watch),
                new CommandSpec("unwatch", 1, List.of("noscript", "loading", "stale", "fast"), 0, 0, 0, (a, s) -> {
                    s.watch(null);
                    return Replies.done(Replies.OK);
                }));
    }

    /** WATCH key...: the keys' bucket and its version now (kept from the first WATCH until EXEC, DISCARD or UNWATCH). */
    private CompletableFuture<RedisMessage> watch(CommandArgs args, ClientSession session) {
        if (session.transaction() != null) return Replies.done(Replies.error("ERR WATCH inside MULTI is not allowed"));
        int bucket = session.watch() != null ? session.watch().bucket() : BucketHasher.bucketOf(args.raw(1), bucketCount);
        for (int i = 1; i < args.count(); i++) {
            if (BucketHasher.bucketOf(args.raw(i), bucketCount) != bucket) {
                return Replies.done(Replies.error(ErrorCode.CROSS_SLOT, null));
            }
        }
        if (session.watch() != null) return Replies.done(Replies.OK);
        KvOp read = new KvOp(KvOp.Type.BUCKET_VERSION, bucket, args.raw(1), null, 0, 0);
        return recording.execute(List.of(read)).thenApply(results -> {
            OpResult r = results.get(0);
            if (r.isError()) return Replies.of(r);
            session.watch(new Watch(bucket, r.number()));
            return Replies.OK;
        });
    }

    /** Whether {@code name} must be queued rather than run now on this session. */
    static boolean queues(ClientSession session, String name) {
        return session.transaction() != null && !CONTROL.contains(name);
    }

    /** Queues a command in MULTI: its arity was checked by the caller; a key of another bucket fails the transaction. */
    RedisMessage queue(ClientSession session, CommandSpec spec, CommandArgs args) {
        Queue q = session.transaction();
        if (spec.flags().contains("blocking")) {
            // Redis runs it without blocking inside MULTI; Cairn's blocking pops poll outside the unit, so they are refused here.
            q.failed = true;
            return Replies.error("ERR " + spec.name().toUpperCase(java.util.Locale.ROOT) + " inside MULTI is not supported by Cairn");
        }
        if (q.bucket < 0 && session.watch() != null) q.bucket = session.watch().bucket();
        List<Integer> positions = keyPositions(spec, args.count());
        if (spec.movableKeys() != null) positions.addAll(spec.movableKeys().positions(args));
        for (int i : positions) {
            int bucket = BucketHasher.bucketOf(args.raw(i), bucketCount);
            if (q.bucket < 0) q.bucket = bucket;
            if (bucket != q.bucket) {
                q.failed = true;
                return Replies.error(ErrorCode.CROSS_SLOT, null);
            }
        }
        q.commands.add(args);
        q.specs.add(spec);
        return QUEUED;
    }

    /** Marks the transaction failed after a command refused while queueing (unknown, wrong arity). */
    static void failQueued(ClientSession session) {
        if (session.transaction() != null) session.transaction().failed = true;
    }

    private static List<Integer> keyPositions(CommandSpec spec, int argc) {
        List<Integer> out = new ArrayList<>();
        if (spec.firstKey() <= 0) return out;
        int last = spec.lastKey() < 0 ? argc + spec.lastKey() : spec.lastKey();
        for (int i = spec.firstKey(); i <= last && i < argc; i += Math.max(1, spec.keyStep())) out.add(i);
        return out;
    }

    private static CompletableFuture<RedisMessage> multi(ClientSession session) {
        if (session.transaction() != null) return Replies.done(Replies.error("ERR MULTI calls can not be nested"));
        session.transaction(new Queue());
        return Replies.done(Replies.OK);
    }

    private static CompletableFuture<RedisMessage> discard(ClientSession session) {
        if (session.transaction() == null) return Replies.done(Replies.error("ERR DISCARD without MULTI"));
        session.transaction(null);
        session.watch(null);
        return Replies.done(Replies.OK);
    }

    /** EXEC: every queued command's operations in one backend call; the replies in order. */
    CompletableFuture<RedisMessage> exec(ClientSession session, java.util.function.BiFunction<CommandSpec, CommandArgs, CompletableFuture<RedisMessage>> run) {
        Queue q = session.transaction();
        if (q == null) return Replies.done(Replies.error("ERR EXEC without MULTI"));
        Watch watch = session.watch();
        session.transaction(null);
        session.watch(null);
        if (q.failed) return Replies.done(Replies.error("EXECABORT Transaction discarded because of previous errors."));
        List<Recording.Call> calls = new ArrayList<>();
        List<CompletableFuture<RedisMessage>> replies = new ArrayList<>(q.commands.size());
        recording.start(calls);
        try {
            for (int i = 0; i < q.commands.size(); i++) replies.add(run.apply(q.specs.get(i), q.commands.get(i)));
        } finally {
            recording.stop();
        }
        // Commands whose keys are not at fixed positions (LMPOP's numkeys form) are checked here, on what they would send.
        java.util.Set<Integer> buckets = new java.util.HashSet<>();
        for (Recording.Call c : calls) for (KvOp op : c.ops()) buckets.add(op.bucket());
        if (watch != null && !buckets.isEmpty()) buckets.add(watch.bucket());
        if (buckets.size() > 1) {
            CairnException crossSlot = new CairnException(ErrorCode.CROSS_SLOT, null);
            for (Recording.Call c : calls) c.answer().completeExceptionally(crossSlot);
            return Replies.done(Replies.error(ErrorCode.CROSS_SLOT, null));
        }
        CompletableFuture<List<OpResult>> guard = CompletableFuture.completedFuture(List.of(OpResult.OK));
        if (watch != null) {
            int guarded = calls.stream().mapToInt(c -> c.ops().size()).sum();
            Recording.Call call = new Recording.Call(List.of(KvOp.txGuard(watch.bucket(), watch.version(), guarded)), new CompletableFuture<>());
            calls.add(0, call);
            guard = call.answer();
        }
        recording.sendAsOne(calls);
        CompletableFuture<RedisMessage> all = CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new))
                .thenApply(v -> Replies.array(replies.stream().map(CompletableFuture::join).toList()));
        return guard.thenCompose(g -> {
            OpResult r = g.get(0);
            if (r.isError()) return CompletableFuture.completedFuture(Replies.of(r));
            // A watched bucket written since WATCH: nothing applied, EXEC answers a nil array.
            if (r.kind() == OpResult.Kind.BULK && r.bytes() == null) return CompletableFuture.completedFuture(ArrayRedisMessage.NULL_INSTANCE);
            return all;
        });
    }

    /**
     * The backend every command handler talks to. Outside EXEC it passes calls through; while EXEC runs
     * the queued handlers (on the connection's event loop thread) it records their operations instead,
     * answering each with a future that {@link #sendAsOne} completes from the one combined call.
     */
    static final class Recording implements KvBackend {
        record Call(List<KvOp> ops, CompletableFuture<List<OpResult>> answer) {}

        private final KvBackend backend;
        private final ThreadLocal<List<Call>> recording = new ThreadLocal<>();

        Recording(KvBackend backend) {
            this.backend = backend;
        }

        void start(List<Call> calls) {
            recording.set(calls);
        }

        void stop() {
            recording.remove();
        }

        /** Sends the recorded calls' operations as one call and hands each call its share of the results. */
        void sendAsOne(List<Call> calls) {
            if (calls.isEmpty()) return;
            List<KvOp> all = new ArrayList<>();
            for (Call c : calls) all.addAll(c.ops());
            backend.execute(all).whenComplete((results, error) -> {
                int at = 0;
                for (Call c : calls) {
                    if (error != null) {
                        c.answer().completeExceptionally(error);
                    } else {
                        c.answer().complete(results.subList(at, at + c.ops().size()));
                    }
                    at += c.ops().size();
                }
            });
        }

        private <T> CompletableFuture<T> notInTransaction(String what) {
            return CompletableFuture.failedFuture(new CairnException(ErrorCode.PROTOCOL, what + " inside MULTI is not supported by Cairn"));
        }

        @Override
        public CompletableFuture<List<OpResult>> execute(List<KvOp> ops) {
            List<Call> calls = recording.get();
            if (calls == null) return backend.execute(ops);
            Call call = new Call(List.copyOf(ops), new CompletableFuture<>());
            calls.add(call);
            return call.answer();
        }

        @Override
        public CompletableFuture<Long> dbSize() {
            return recording.get() == null ? backend.dbSize() : notInTransaction("a key count");
        }

        @Override
        public CompletableFuture<KeyspaceStats> keyspaceStats() {
            return recording.get() == null ? backend.keyspaceStats() : notInTransaction("INFO keyspace");
        }

        @Override
        public CompletableFuture<Long> exactKeyCount() {
            return recording.get() == null ? backend.exactKeyCount() : notInTransaction("DBSIZE");
        }

        @Override
        public CompletableFuture<List<byte[]>> keys(Predicate<byte[]> match, int maxKeys) {
            return recording.get() == null ? backend.keys(match, maxKeys) : notInTransaction("KEYS");
        }

        @Override
        public CompletableFuture<Long> flushAll() {
            return recording.get() == null ? backend.flushAll() : notInTransaction("FLUSHALL");
        }

        @Override
        public CompletableFuture<ScanPage> scan(KeyPage.Position from, int count) {
            return recording.get() == null ? backend.scan(from, count) : notInTransaction("SCAN");
        }

        @Override
        public int bucketCount() {
            return backend.bucketCount();
        }

        @Override
        public Map<String, Map<String, String>> info() {
            return backend.info();
        }
    }
}
