package io.cairn.server.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import io.cairn.archive.ArchiveRef;
import io.cairn.archive.ObjectBody;
import io.cairn.archive.ObjectInfo;
import io.cairn.archive.ObjectPage;
import io.cairn.archive.ObjectStore;
import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.server.admin.AdminClient;
import io.cairn.server.admin.AdminServer;
import io.cairn.server.admin.BackupObjects;
import io.cairn.server.config.ClusterConfig;

import java.io.IOException;
import java.io.InputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Backup and restore of a whole cluster through the object store (issue 23 item 6; docs/archive.md,
 * "Backup and restore"). The driver behind {@code cairn backup}: it asks each bucket's owner (the
 * leader of its replicaset, over the admin HTTP port) to write or adopt one object, so bucket data
 * goes between the owner and the store only, under the owner's store throttle.
 *
 * <p>Layout under the backup prefix {@code P}: {@code P/<id>/buckets/<b>/<gen>-<sha256>} (the
 * archive object format), and {@code P/manifests/<id>.json}, written last: a backup without its
 * manifest is incomplete and is neither listed nor restorable.
 *
 * <p>Restore goes only into an empty cluster (no key, no archived bucket): each bucket is adopted as
 * ARCHIVED by the replicaset that owns it there, at that cluster's generation, so a restore never
 * creates a second owner of any bucket (see the class comment of {@code BucketBackups}).
 */
final class ClusterBackup {
    static final String DEFAULT_PREFIX = "cairn-backups";
    /** Buckets in flight at once: a bucket's cost is mostly the store's fsyncs and round trips, which overlap. */
    static final int DEFAULT_PARALLEL_CALLS = 4;
    /** How long a bucket caught between two owners (a move) is looked for before the backup gives up. */
    private static final Duration OWNER_WAIT = Duration.ofSeconds(60);

    /** One bucket in a backup: where it was, and its object. */
    record Entry(int bucket, String replicaset, long generation, String object, long keys, long bytes, long sizeBytes, String sha256) {
        ArchiveRef ref() {
            return new ArchiveRef(object, bucket, generation, keys, bytes, sizeBytes, sha256);
        }
    }

    record Manifest(String id, long createdMs, long epoch, int bucketCount, List<Entry> buckets) {
        long keys() {
            return buckets.stream().mapToLong(Entry::keys).sum();
        }

        long sizeBytes() {
            return buckets.stream().mapToLong(Entry::sizeBytes).sum();
        }
    }

    private final ClusterConfig config;
    private final ObjectStore store;
    private final String prefix;
    private final Map<String, String> leaders = new java.util.concurrent.ConcurrentHashMap<>();
    private final int parallelCalls;

    ClusterBackup(ClusterConfig config, ObjectStore store, String prefix) {
        this(config, store, prefix, DEFAULT_PARALLEL_CALLS);
    }

    /** @param parallelCalls buckets written or adopted at once, over all replicasets (1..64) */
    ClusterBackup(ClusterConfig config, ObjectStore store, String prefix, int parallelCalls) {
        if (parallelCalls < 1 || parallelCalls > 64) throw new CairnException(ErrorCode.INVALID_CONFIG, "--parallel must be 1..64, was " + parallelCalls);
        this.parallelCalls = parallelCalls;
        if (prefix.equals(config.archive().prefix()) || prefix.startsWith(config.archive().prefix() + "/")) {
            throw new CairnException(ErrorCode.INVALID_CONFIG, "the backup prefix must be outside archive.prefix (" + config.archive().prefix() + "): the sweepers own that one");
        }
        this.config = config;
        this.store = store;
        this.prefix = prefix;
    }

    static String manifestKey(String prefix, String id) {
        return prefix + "/manifests/" + id + ".json";
    }

    /** Backs up every bucket, then writes the manifest; {@code progress} gets a line now and then. */
    Manifest create(String id, long epoch, Consumer<String> progress) {
        if (store.head(manifestKey(prefix, id)).isPresent()) throw new CairnException(ErrorCode.INVALID_CONFIG, "backup " + id + " exists already");
        int count = config.topology().bucketCount();
        List<Integer> all = java.util.stream.IntStream.rangeClosed(1, count).boxed().toList();
        List<Entry> entries = inParallel(all, b -> {
            String line = onOwner(b, "backup?prefix=" + enc(prefix + "/" + id));
            String rs = line.substring(0, line.indexOf(' '));
            ArchiveRef r = BackupObjects.parse(b, line.substring(rs.length() + 1));
            return new Entry(b, rs, r.generation(), r.objectKey(), r.keyCount(), r.byteCount(), r.sizeBytes(), r.contentHash());
        }, "backed up", progress);
        Manifest m = new Manifest(id, System.currentTimeMillis(), epoch, count, List.copyOf(entries));
        try {
            store.put(manifestKey(prefix, id), ObjectBody.of(AdminServer.JSON.writeValueAsBytes(m)), Map.of());
        } catch (IOException e) {
            throw new CairnException(ErrorCode.INTERNAL, "manifest of backup " + id + " not encoded: " + e);
        }
        return m;
    }

    /** Every complete backup (one with a manifest), oldest first. */
    List<Manifest> list() {
        List<Manifest> out = new ArrayList<>();
        String token = null;
        do {
            ObjectPage page = store.list(prefix + "/manifests/", token, 1000);
            for (var o : page.objects()) {
                String name = o.key().substring(o.key().lastIndexOf('/') + 1);
                if (name.endsWith(".json")) out.add(read(name.substring(0, name.length() - 5)));
            }
            token = page.nextPageToken().orElse(null);
        } while (token != null);
        return out;
    }

    Manifest read(String id) {
        if (store.head(manifestKey(prefix, id)).isEmpty()) {
            throw new CairnException(ErrorCode.OBJECT_NOT_FOUND, "no backup " + id + " under " + prefix + " (see cairn backup list)");
        }
        try (InputStream in = store.get(manifestKey(prefix, id))) {
            return AdminServer.JSON.readValue(in, new TypeReference<Manifest>() {});
        } catch (IOException e) {
            throw new CairnException(ErrorCode.ARCHIVE_CORRUPT, "manifest of backup " + id + " unreadable: " + e.getMessage());
        }
    }

    /** What a delete removed: whether the backup was complete (had its manifest), and its objects. */
    record Deleted(boolean complete, int objects, long sizeBytes) {}

    /**
     * Deletes backup {@code id}: its manifest first (from then on it is neither listed nor restorable),
     * then every object under its folder, so an interrupted delete, like an interrupted create, leaves
     * an incomplete backup that deleting again finishes. A restored cluster keeps nothing of it: a
     * restore copies each object into the cluster's own prefix ({@code BucketBackups.adoptBackup}).
     */
    Deleted delete(String id, Consumer<String> progress) {
        if (!id.matches("[A-Za-z0-9._-]+") || id.startsWith(".")) {
            throw new CairnException(ErrorCode.SYNTAX, "not a backup id: '" + id + "' (see cairn backup list)");
        }
        boolean complete = store.head(manifestKey(prefix, id)).isPresent();
        List<ObjectInfo> objects = new ArrayList<>();
        String token = null;
        do {
            ObjectPage page = store.list(prefix + "/" + id + "/", token, 1000);
            objects.addAll(page.objects());
            token = page.nextPageToken().orElse(null);
        } while (token != null);
        if (!complete && objects.isEmpty()) throw new CairnException(ErrorCode.OBJECT_NOT_FOUND, "no backup " + id + " under " + prefix + " (see cairn backup list)");
        if (complete) store.delete(manifestKey(prefix, id));
        long bytes = 0;
        for (int i = 0; i < objects.size(); i++) {
            store.delete(objects.get(i).key());
            bytes += objects.get(i).sizeBytes();
            if ((i + 1) % 500 == 0) progress.accept("deleted " + (i + 1) + "/" + objects.size() + " objects");
        }
        return new Deleted(complete, objects.size(), bytes);
    }

    /** Restores backup {@code id} into this (empty) cluster: every bucket adopted as archived by its owner. */
    Manifest restore(String id, Consumer<String> progress) {
        Manifest m = read(id);
        if (m.bucketCount() != config.topology().bucketCount()) {
            throw new CairnException(ErrorCode.INVALID_CONFIG, "backup " + id + " has " + m.bucketCount() + " buckets, this cluster "
                    + config.topology().bucketCount() + " (bucket_count never changes)");
        }
        requireEmpty();
        List<Integer> held = m.buckets().stream().filter(e -> e.keys() > 0).map(Entry::bucket).toList();
        Map<Integer, Entry> byBucket = new HashMap<>();
        for (Entry e : m.buckets()) byBucket.put(e.bucket(), e);
        // an empty bucket is empty in the fresh cluster already: adopting its object would only cost a restore later
        inParallel(held, b -> {
            onOwner(b, "adopt-backup?object=" + enc(BackupObjects.line(byBucket.get(b).ref())));
            return byBucket.get(b);
        }, "restored", progress);
        return m;
    }

    /**
     * Rebuilds replicaset {@code rsId}, which lost its data (every member's disk), from backup {@code id}
     * into the live cluster: every bucket the backup found on it is adopted there, ACTIVE and archived
     * at the backup's generation (docs/archive.md, "Restoring one replicaset"). A bucket that moved away
     * since is then held twice, here at the older generation, and the doubled-bucket check contains
     * this copy; the rest serve the backup's data (writes made to them after the backup are lost with
     * the disks). Only into a replicaset that owns no bucket and holds no key or archive, unless
     * {@code resume}: then the buckets rebuilt by an interrupted run are skipped (each adopt is
     * idempotent) and any other bucket it holds a record of stops the command (the ledger refuses it).
     */
    Manifest restoreReplicaset(String id, String rsId, boolean resume, Consumer<String> progress) {
        Manifest m = read(id);
        if (m.bucketCount() != config.topology().bucketCount()) {
            throw new CairnException(ErrorCode.INVALID_CONFIG, "backup " + id + " has " + m.bucketCount() + " buckets, this cluster "
                    + config.topology().bucketCount() + " (bucket_count never changes)");
        }
        ReplicasetSpec rs = config.topology().replicaset(rsId)
                .orElseThrow(() -> new CairnException(ErrorCode.INVALID_CONFIG, "no replicaset " + rsId + " in this cluster's topology"));
        List<Entry> its = m.buckets().stream().filter(e -> e.replicaset().equals(rsId)).toList();
        if (its.isEmpty()) throw new CairnException(ErrorCode.INVALID_CONFIG, "backup " + id + " holds no bucket of " + rsId + "; nothing was changed");
        if (!resume) requireWiped(rs);
        for (ReplicasetSpec other : config.topology().replicasets()) {
            // the containment asks every replicaset for its copy: one that does not answer is left out of the verdict
            if (!other.id().equals(rsId)) leader(other);
        }
        Map<Integer, Entry> byBucket = new HashMap<>();
        for (Entry e : its) byBucket.put(e.bucket(), e);
        // every bucket, empty ones included: a bucket without a record here would be owned by no one
        inParallel(its.stream().map(Entry::bucket).toList(), b -> {
            onReplicaset(rs, b, "adopt-restored?object=" + enc(BackupObjects.line(byBucket.get(b).ref())));
            return byBucket.get(b);
        }, "rebuilt", progress);
        return m;
    }

    /** The replicaset owns no bucket and holds no key or archive (its leader's view): it lost its data. */
    private void requireWiped(ReplicasetSpec rs) {
        Map<String, Object> info = AdminClient.getJson(leader(rs) + "/info");
        Object keys = info == null ? null : info.get("keys");
        Object owned = info == null ? null : info.get("bucketsOwned");
        Object archived = info != null && info.get("archive") instanceof Map<?, ?> a ? a.get("archivedBuckets") : null;
        if (!(keys instanceof Number k) || !(owned instanceof Number o) || !(archived instanceof Number n)) {
            throw new CairnException(ErrorCode.UNAVAILABLE, "the leader of " + rs.id() + " did not say what it holds (is the archive tier on?)");
        }
        if (k.longValue() > 0 || o.longValue() > 0 || n.longValue() > 0) {
            throw new CairnException(ErrorCode.ILLEGAL_TRANSITION, "replicaset " + rs.id() + " still holds data (" + o + " buckets, " + k + " keys, "
                    + n + " archived buckets): only a replicaset that lost its data is rebuilt from a backup (--resume continues an"
                    + " interrupted rebuild); nothing was changed");
        }
    }

    /** POSTs {@code /buckets/B/<action>} to {@code rs}'s leader, asked again after a leader change until {@link #OWNER_WAIT}. */
    private String onReplicaset(ReplicasetSpec rs, int bucket, String action) {
        long deadline = System.nanoTime() + OWNER_WAIT.toNanos();
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            try {
                AdminClient.Answer r = AdminClient.post(leader(rs) + "/buckets/" + bucket + "/" + action);
                int status = r.status();
                String body = r.body().trim();
                if (status == 200) return body;
                if (status != 421 && status != 0) throw new CairnException(ErrorCode.ILLEGAL_TRANSITION, "bucket " + bucket + " on " + rs.id() + ": " + body);
                leaders.remove(rs.id()); // leader changed or down: found again next time
                last = body;
            } catch (CairnException e) {
                if (e.code() != ErrorCode.UNAVAILABLE) throw e;
                last = e.getMessage(); // an election
            }
            LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
        }
        throw new CairnException(ErrorCode.UNAVAILABLE, "replicaset " + rs.id() + " did not rebuild bucket " + bucket + " (last answer: " + last + ")");
    }

    /** No key and no archived bucket on any replicaset (its leader's view): a restore never lands next to live data. */
    private void requireEmpty() {
        for (ReplicasetSpec rs : config.topology().replicasets()) {
            Map<String, Object> info = AdminClient.getJson(leader(rs) + "/info");
            Object keys = info == null ? null : info.get("keys");
            Object archived = info != null && info.get("archive") instanceof Map<?, ?> a ? a.get("archivedBuckets") : null;
            if (!(keys instanceof Number k) || !(archived instanceof Number n)) {
                throw new CairnException(ErrorCode.UNAVAILABLE, "the leader of " + rs.id() + " did not say what it holds (is the archive tier on?)");
            }
            if (k.longValue() > 0 || n.longValue() > 0) {
                throw new CairnException(ErrorCode.ILLEGAL_TRANSITION, "replicaset " + rs.id() + " is not empty (" + k + " keys, "
                        + n + " archived buckets): a backup is restored only into a fresh cluster; nothing was changed");
            }
        }
    }

    /**
     * POSTs {@code /buckets/B/<action>} to the owner's leader (its answer prefixed with its replicaset
     * id). Non-owners answer 410 and are skipped; a bucket caught in a move is asked again until
     * {@link #OWNER_WAIT}.
     */
    private String onOwner(int bucket, String action) {
        long deadline = System.nanoTime() + OWNER_WAIT.toNanos();
        String last = "no replicaset answered";
        while (System.nanoTime() < deadline) {
            for (ReplicasetSpec rs : config.topology().replicasets()) {
                String base;
                try {
                    base = leader(rs);
                } catch (CairnException e) { // an election: asked again in the next round
                    last = e.getMessage();
                    continue;
                }
                AdminClient.Answer r = AdminClient.post(base + "/buckets/" + bucket + "/" + action);
                int status = r.status();
                String body = r.body().trim();
                if (status == 200) return rs.id() + " " + body;
                if (status == 421 || status == 0) leaders.remove(rs.id()); // leader changed or down: found again next time
                else if (status != 410) throw new CairnException(ErrorCode.ILLEGAL_TRANSITION, "bucket " + bucket + " on " + rs.id() + ": " + body);
                last = rs.id() + ": " + body;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(200).toNanos()); // a move in flight: its owner appears
        }
        throw new CairnException(ErrorCode.UNAVAILABLE, "no replicaset serves bucket " + bucket + " (last answer: " + last + ")");
    }

    /** Base URL of the member whose {@code /info} says it leads the replicaset. */
    private String leader(ReplicasetSpec rs) {
        String known = leaders.get(rs.id());
        if (known != null) return known;
        for (NodeAddress n : rs.nodes()) {
            String base = "http://" + n.host() + ":" + n.adminPort();
            Map<String, Object> info = AdminClient.getJson(base + "/info", Duration.ofSeconds(5));
            if (info != null && "LEADER".equals(info.get("raftRole"))) {
                leaders.put(rs.id(), base);
                return base;
            }
        }
        throw new CairnException(ErrorCode.UNAVAILABLE, "no member of replicaset " + rs.id() + " says it leads (an election?); try again");
    }

    /**
     * {@code work} for every bucket, {@link #parallelCalls} at once, results in bucket order; a line of
     * progress every 100 buckets. The first failure stops the rest and is thrown.
     */
    private List<Entry> inParallel(List<Integer> buckets, java.util.function.IntFunction<Entry> work, String verb, Consumer<String> progress) {
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(parallelCalls, r -> {
            Thread t = new Thread(r, "cairn-backup");
            t.setDaemon(true);
            return t;
        });
        try {
            List<java.util.concurrent.Future<Entry>> futures = new ArrayList<>();
            for (int b : buckets) futures.add(pool.submit(() -> work.apply(b)));
            List<Entry> out = new ArrayList<>(buckets.size());
            long startNs = System.nanoTime(), keys = 0, bytes = 0;
            for (java.util.concurrent.Future<Entry> f : futures) {
                Entry e = f.get();
                out.add(e);
                keys += e.keys();
                bytes += e.sizeBytes();
                if (out.size() % 100 == 0 || out.size() == buckets.size()) progress.accept(progressLine(verb, out.size(), buckets.size(), keys, bytes, startNs));
            }
            return out;
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof CairnException ce) throw ce;
            throw new CairnException(ErrorCode.INTERNAL, verb + ": " + e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CairnException(ErrorCode.UNAVAILABLE, "interrupted");
        } finally {
            pool.shutdownNow();
        }
    }

    private static String progressLine(String verb, int done, int total, long keys, long bytes, long startNs) {
        double s = Math.max(1e-3, (System.nanoTime() - startNs) / 1e9);
        return String.format("%s %d/%d buckets, %d keys, %.1f MB in %.1f s (%.0f keys/s, %.1f MB/s)", verb, done, total, keys, bytes / 1e6, s,
                keys / s, bytes / 1e6 / s);
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
