package io.cairn.core.move;

import java.util.Collection;
import java.util.Comparator;
import java.util.Set;

/**
 * What the archive sweeper does with one object of a replicaset's prefix (issue 23, seed 002;
 * docs/archive.md, "Sweeper"). Pure: the listing, the bucket's replicated pointer and the clock come in.
 *
 * <p>Objects no record points to appear when an upload or a move's copy is never recorded (a leader
 * or driver died in between), or a delete after a move or FLUSHALL was lost. The sweeper removes them
 * in two steps, each behind the age guard, so neither a write in flight nor a bug can cost data at
 * once: an unreferenced archive older than the guard moves to {@code <prefix>/quarantine/<ms>/...}
 * (copy, then delete), and a quarantined object is deleted once it has been there as long. Keys it
 * does not recognise, and objects of unknown age, are kept. The prefix of a replicaset removed from
 * the topology has no leader of its own: one live replicaset's leader sweeps it by the same rules
 * ({@link #ofRemovedReplicaset}).
 */
public final class ArchiveSweep {
    private ArchiveSweep() {}

    public enum Action { KEEP, QUARANTINE, DELETE }

    /** {@code target}: the quarantine key for QUARANTINE, else empty. */
    public record Verdict(Action action, String target) {
        static final Verdict KEEP = new Verdict(Action.KEEP, "");
    }

    public static String bucketsPrefix(String replicasetPrefix) {
        return replicasetPrefix + "/buckets/";
    }

    public static String quarantinePrefix(String replicasetPrefix) {
        return replicasetPrefix + "/quarantine/";
    }

    /** The bucket of an archive key {@code <prefix>/buckets/<bucket>/<name>}, or -1 when {@code key} is not one. */
    public static int bucketOf(String replicasetPrefix, String key) {
        String head = bucketsPrefix(replicasetPrefix);
        if (!key.startsWith(head)) return -1;
        String rest = key.substring(head.length());
        int slash = rest.indexOf('/');
        if (slash <= 0 || slash == rest.length() - 1 || rest.indexOf('/', slash + 1) >= 0) return -1;
        try {
            int bucket = Integer.parseInt(rest.substring(0, slash));
            return bucket > 0 ? bucket : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * An object under the replicaset's {@code buckets/}: kept while its bucket's pointer names it or it
     * is younger than {@code ageGuardMs}; else quarantined.
     *
     * @param pointer the replicated pointer of the key's bucket here (null: none)
     */
    public static Verdict ofArchive(String replicasetPrefix, String key, long lastModifiedMs, ArchivePointer pointer, long nowMs, long ageGuardMs) {
        int bucket = bucketOf(replicasetPrefix, key);
        if (bucket < 0) return Verdict.KEEP;
        if (pointer != null && pointer.objectKey().equals(key)) return Verdict.KEEP;
        if (lastModifiedMs < 0 || nowMs - lastModifiedMs < ageGuardMs) return Verdict.KEEP;
        String target = quarantinePrefix(replicasetPrefix) + nowMs + "/" + key.substring(bucketsPrefix(replicasetPrefix).length() - "buckets/".length());
        return new Verdict(Action.QUARANTINE, target);
    }

    /** The replicaset whose prefix holds {@code key} ({@code <clusterPrefix>/<replicaset>/...}), or null when it is not under one. */
    public static String replicasetOf(String clusterPrefix, String key) {
        String head = clusterPrefix + "/";
        if (!key.startsWith(head)) return null;
        int slash = key.indexOf('/', head.length());
        return slash <= head.length() ? null : key.substring(head.length(), slash);
    }

    /**
     * The one replicaset whose leader sweeps the prefixes of replicasets no longer in the topology: the
     * first by id, so every node that knows the same topology picks the same one (null: none known).
     */
    public static String removedPrefixSweeperOf(Collection<String> liveReplicasets) {
        return liveReplicasets.stream().min(Comparator.naturalOrder()).orElse(null);
    }

    /**
     * An object anywhere under the cluster's prefix, judged for the sweeper of removed replicasets'
     * prefixes ({@code cairn topology remove-replicaset}, or replaced under a new id). A replicaset in
     * the topology is left to its own leader's sweeper (KEEP). Under a removed one no record names
     * anything any more (its buckets were moved away, their objects copied first), so the same two
     * steps as for an unnamed object apply: quarantine after the age guard, delete from the quarantine
     * after as long again. An empty topology keeps everything: not knowing the topology must never make
     * every prefix look removed.
     */
    public static Verdict ofRemovedReplicaset(String clusterPrefix, String key, long lastModifiedMs, Set<String> liveReplicasets,
                                              long nowMs, long ageGuardMs) {
        String replicaset = replicasetOf(clusterPrefix, key);
        if (replicaset == null || liveReplicasets.isEmpty() || liveReplicasets.contains(replicaset)) return Verdict.KEEP;
        String replicasetPrefix = clusterPrefix + "/" + replicaset;
        if (key.startsWith(quarantinePrefix(replicasetPrefix))) return ofQuarantined(replicasetPrefix, key, nowMs, ageGuardMs);
        return ofArchive(replicasetPrefix, key, lastModifiedMs, null, nowMs, ageGuardMs);
    }

    /** An object under the replicaset's {@code quarantine/<ms>/}: deleted once it has been there {@code ageGuardMs}. */
    public static Verdict ofQuarantined(String replicasetPrefix, String key, long nowMs, long ageGuardMs) {
        String head = quarantinePrefix(replicasetPrefix);
        if (!key.startsWith(head)) return Verdict.KEEP;
        String rest = key.substring(head.length());
        int slash = rest.indexOf('/');
        if (slash <= 0) return Verdict.KEEP;
        long since;
        try {
            since = Long.parseLong(rest.substring(0, slash));
        } catch (NumberFormatException e) {
            return Verdict.KEEP;
        }
        return nowMs - since >= ageGuardMs ? new Verdict(Action.DELETE, "") : Verdict.KEEP;
    }
}
