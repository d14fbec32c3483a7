package io.cairn.router.resp;

import io.cairn.core.BucketHasher;
import io.cairn.core.CairnException;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;
import io.cairn.core.wire.KeyPage.Position;
import io.cairn.router.KvBackend;
import io.netty.handler.codec.redis.RedisMessage;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * Whole-keyspace commands: DBSIZE, SCAN, KEYS, FLUSHALL, FLUSHDB. DBSIZE, KEYS and FLUSHALL run
 * as map-reduce calls under storage refs (exact while buckets move); SCAN walks buckets and needs
 * none (docs/architecture.md, "Map-reduce and storage refs"). SCAN's TYPE filter asks the type of
 * each key of the page that passed MATCH, in one backend call, as Redis filters after reading too.
 */
final class KeyspaceCommands {
    /** Most keys one KEYS reply may carry; past it the command fails and SCAN is the way. */
    static final int MAX_KEYS_REPLY = 1_000_000;
    static final int DEFAULT_SCAN_COUNT = 10;
    /** SCAN COUNT is capped here (a replicaset caps a page too). */
    static final int MAX_SCAN_COUNT = 10_000;
    /** The most scan pages one RANDOMKEY reads (a nearly empty keyspace of many buckets). */
    private static final int MAX_RANDOM_KEY_PAGES = 10_000;

    private final KvBackend backend;
    private final ScanCursors cursors = new ScanCursors();

    KeyspaceCommands(KvBackend backend) {
        this.backend = backend;
    }

    List<CommandSpec> specs() {
        return List.of(
                new CommandSpec("dbsize", 1, List.of("readonly", "fast"), 0, 0, 0,
                        (a, s) -> backend.exactKeyCount().thenApply(Replies::integer)),
                new CommandSpec("scan", -2, List.of("readonly"), 0, 0, 0, this::scan),
                new CommandSpec("keys", 2, List.of("readonly"), 0, 0, 0, this::keys),
                new CommandSpec("flushall", -1, List.of("write"), 0, 0, 0, this::flush),
                new CommandSpec("flushdb", -1, List.of("write"), 0, 0, 0, this::flush),
                new CommandSpec("randomkey", 1, List.of("readonly"), 0, 0, 0, (a, s) -> randomKey(
                        new Position(1 + java.util.concurrent.ThreadLocalRandom.current().nextInt(backend.bucketCount()), null), false, 0)));
    }

    /** SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]. */
    /**
     * RANDOMKEY: the first key at or after a random bucket, wrapping to the start once; nil when there is
     * none. Keys are not equally likely (a key after an empty stretch of buckets comes up more often):
     * Redis's choice is not uniform either. Bounded: one pass over the keyspace at most, a page at a time.
     */
    private CompletableFuture<RedisMessage> randomKey(Position from, boolean wrapped, int pages) {
        return backend.scan(from, 16).thenCompose(page -> {
            if (!page.keys().isEmpty()) return Replies.done(Replies.bulk(page.keys().get(0)));
            if (page.next() != null && pages < MAX_RANDOM_KEY_PAGES) return randomKey(page.next(), wrapped, pages + 1);
            if (!wrapped) return randomKey(Position.START, true, pages + 1);
            return Replies.done(Replies.NIL);
        });
    }

    private CompletableFuture<RedisMessage> scan(CommandArgs args, ClientSession session) {
        Position from = cursors.decode(args.string(1), backend.bucketCount());
        if (from == null) return Replies.done(Replies.error("ERR invalid cursor"));
        ScanOptions options = ScanOptions.parse(args, 2, true);
        if (options == null) return Replies.done(Replies.syntaxError());
        Predicate<byte[]> match = matcher(options.pattern());
        String wantedType = options.type();
        return backend.scan(from, (int) Math.min(options.count(), MAX_SCAN_COUNT)).thenCompose(page -> {
            List<byte[]> keys = new ArrayList<>();
            for (byte[] key : page.keys()) if (match.test(key)) keys.add(key);
            RedisMessage cursor = Replies.bulk(cursors.encode(page.next()));
            return ofType(keys, wantedType).thenApply(kept -> {
                List<RedisMessage> replies = new ArrayList<>(kept.size());
                for (byte[] key : kept) replies.add(Replies.bulk(key));
                return Replies.array(List.of(cursor, Replies.array(replies)));
            });
        });
    }

    /** The keys whose type is {@code type} (all of them when null); a key gone meanwhile has type "none". */
    private CompletableFuture<List<byte[]>> ofType(List<byte[]> keys, String type) {
        if (type == null || keys.isEmpty()) return CompletableFuture.completedFuture(keys);
        List<KvOp> ops = new ArrayList<>(keys.size());
        for (byte[] key : keys) ops.add(KvOp.of(KvOp.Type.TYPE, BucketHasher.bucketOf(key, backend.bucketCount()), key));
        return backend.execute(ops).thenApply(results -> {
            List<byte[]> kept = new ArrayList<>();
            for (int i = 0; i < keys.size(); i++) {
                OpResult r = results.get(i);
                if (r.isError()) throw new CairnException(r.error(), r.message());
                if (new String(r.bytes(), StandardCharsets.UTF_8).equals(type)) kept.add(keys.get(i));
            }
            return kept;
        });
    }

    private CompletableFuture<RedisMessage> keys(CommandArgs args, ClientSession session) {
        return backend.keys(matcher(latin1(args.raw(1))), MAX_KEYS_REPLY).thenApply(keys -> {
            List<RedisMessage> out = new ArrayList<>(keys.size());
            for (byte[] key : keys) out.add(Replies.bulk(key));
            return Replies.array(out);
        });
    }

    /** FLUSHALL / FLUSHDB [ASYNC | SYNC]: both are synchronous here. */
    private CompletableFuture<RedisMessage> flush(CommandArgs args, ClientSession session) {
        if (args.count() > 2 || (args.count() == 2 && !args.is(1, "async") && !args.is(1, "sync"))) {
            return Replies.done(Replies.syntaxError());
        }
        return backend.flushAll().thenApply(deleted -> Replies.OK);
    }

    private static Predicate<byte[]> matcher(String pattern) {
        if (pattern == null || pattern.equals("*")) return key -> true;
        return key -> Glob.matchesExactly(pattern, latin1(key));
    }

    static String latin1(byte[] bytes) {
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }
}
