package io.cairn.server.chaos;

import java.util.Objects;

/**
 * One client operation on one key as the chaos workload saw it: when it started and ended (the
 * workload's {@code System.nanoTime()}), what it wrote or read, and its outcome. A multi-key
 * command (MSET on a hash tag) is recorded as one write per key, with the same times and outcome.
 *
 * @param type    what the operation did to {@code key}
 * @param key     the key
 * @param value   WRITE: the value written (unique per write), null for a DEL; READ and FINAL_READ:
 *                the value read, null for nil; INCR: the reply, null when there was none
 * @param startNs when the client sent the request
 * @param endNs   when the client had its answer (or gave up)
 * @param outcome OK for an answer, FAILED for an error that says the operation was not applied
 *                (CLUSTERDOWN, TRYAGAIN), UNKNOWN when it may or may not have been applied
 *                (TIMEOUT, a lost connection). Reads are recorded only when OK.
 */
public record Op(Type type, String key, String value, long startNs, long endNs, Outcome outcome) {
    public enum Type { WRITE, READ, INCR, FINAL_READ }

    public enum Outcome { OK, FAILED, UNKNOWN }

    public Op {
        Objects.requireNonNull(type);
        Objects.requireNonNull(key);
        Objects.requireNonNull(outcome);
        if (endNs < startNs) throw new IllegalArgumentException("ends before it starts: " + startNs + ".." + endNs);
        if ((type == Type.READ || type == Type.FINAL_READ) && outcome != Outcome.OK) {
            throw new IllegalArgumentException("only answered reads are recorded: " + outcome);
        }
    }

    public static Op write(String key, String value, long startNs, long endNs, Outcome outcome) {
        return new Op(Type.WRITE, key, value, startNs, endNs, outcome);
    }

    public static Op delete(String key, long startNs, long endNs, Outcome outcome) {
        return new Op(Type.WRITE, key, null, startNs, endNs, outcome);
    }

    public static Op read(String key, String value, long startNs, long endNs) {
        return new Op(Type.READ, key, value, startNs, endNs, Outcome.OK);
    }

    public static Op incr(String key, Long reply, long startNs, long endNs, Outcome outcome) {
        return new Op(Type.INCR, key, reply == null ? null : reply.toString(), startNs, endNs, outcome);
    }

    /** The value a key reads once the run is over and the cluster healed: every acknowledged write must be accounted for. */
    public static Op finalRead(String key, String value, long atNs) {
        return new Op(Type.FINAL_READ, key, value, atNs, atNs, Outcome.OK);
    }

    boolean isRead() {
        return type == Type.READ || type == Type.FINAL_READ;
    }

    @Override
    public String toString() {
        return type + " " + key + (value == null ? " nil" : " " + value) + " [" + startNs + ".." + endNs + "] " + outcome;
    }
}
