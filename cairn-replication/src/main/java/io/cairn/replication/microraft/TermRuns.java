package io.cairn.replication.microraft;

import java.util.ArrayList;
import java.util.List;

/**
 * The term of every log index, kept as runs (the first index of each term): MicroRaft hands the
 * state machine an entry's index but not its term, and terms change rarely, so this stays tiny.
 * Fed by the log store as entries are appended, truncated and restored; read by the state machine
 * adapter. Both run on the Raft thread.
 */
final class TermRuns {
    private final List<long[]> runs = new ArrayList<>(); // {first index, term}, increasing

    void appended(long index, long term) {
        if (runs.isEmpty() || runs.get(runs.size() - 1)[1] != term) runs.add(new long[] {index, term});
    }

    /** Entries from {@code index} on were removed. */
    void truncatedFrom(long index) {
        while (!runs.isEmpty() && runs.get(runs.size() - 1)[0] >= index) runs.remove(runs.size() - 1);
    }

    /** Runs that end before {@code index} are no longer needed. */
    void forgetBefore(long index) {
        while (runs.size() > 1 && runs.get(1)[0] <= index) runs.remove(0);
    }

    /** The term of the entry at {@code index}, or 0 when unknown. */
    long termOf(long index) {
        for (int i = runs.size() - 1; i >= 0; i--) {
            if (runs.get(i)[0] <= index) return runs.get(i)[1];
        }
        return 0;
    }
}
