package io.cairn.sim;

/** What the member faults of one replicaset did in a run; {@link Sim} sums them into the scenario's summary line. */
final class SimRaftCounters {
    long memberCrashes;
    /** Process crashes: the state machine's database outlived the crash (and may be ahead of the durable log). */
    long crashesKeepingDatabase;
    /** Entries a restart's replay skipped because the surviving database held them already. */
    long entriesSkippedOnReplay;
    /** Log entries a crash dropped because they were not flushed yet. */
    long lostUnflushed;
    /** Uncommitted entries a follower dropped because the new leader's log disagreed. */
    long truncatedUncommitted;
    /** Restarts that replayed at least one durable log entry past their snapshot. */
    long restartsReplaying;
    /** Members brought up to date by the leader's snapshot (a new member, or one behind the leader's compacted log). */
    long snapshotCatchUps;
    long snapshots;
    long elections;
    long leaderLosses;
    /** Answers of entries in flight lost with their leader (the entry may still commit). */
    long answersLost;
    long replacementsStarted;
    /** Voters whose disk was lost, then replaced: their member out of the voters, a new one in as a learner. */
    long wipes;
    long promotions;
    long replacements;
    /** Replacements started while a bucket of the replicaset was half-way through a move. */
    long replacementsDuringMoves;
    /** Member crashes while a replacement in the same replicaset was under way. */
    long crashesDuringReplacement;
    /** Rebuilt members found equal to the committed state once they caught up. */
    long statesCompared;

    void add(SimRaftCounters o) {
        memberCrashes += o.memberCrashes;
        crashesKeepingDatabase += o.crashesKeepingDatabase;
        entriesSkippedOnReplay += o.entriesSkippedOnReplay;
        lostUnflushed += o.lostUnflushed;
        truncatedUncommitted += o.truncatedUncommitted;
        restartsReplaying += o.restartsReplaying;
        snapshotCatchUps += o.snapshotCatchUps;
        snapshots += o.snapshots;
        elections += o.elections;
        leaderLosses += o.leaderLosses;
        answersLost += o.answersLost;
        replacementsStarted += o.replacementsStarted;
        wipes += o.wipes;
        promotions += o.promotions;
        replacements += o.replacements;
        replacementsDuringMoves += o.replacementsDuringMoves;
        crashesDuringReplacement += o.crashesDuringReplacement;
        statesCompared += o.statesCompared;
    }

    @Override
    public String toString() {
        return elections + " elections, " + memberCrashes + " member crashes losing " + lostUnflushed + " unflushed entries, "
                + answersLost + " answers lost with their leader, " + truncatedUncommitted
                + " uncommitted entries truncated, " + crashesKeepingDatabase + " crashes keeping the database, "
                + restartsReplaying + " restarts replaying their log (" + entriesSkippedOnReplay + " entries skipped: in the database), " + snapshotCatchUps
                + " snapshot catch-ups, " + wipes + " voters wiped and replaced, " + replacements + " of " + replacementsStarted + " member replacements done ("
                + replacementsDuringMoves + " started with a move in flight, " + crashesDuringReplacement + " crashes meanwhile), "
                + statesCompared + " rebuilt members equal to the committed state";
    }

    /** Every counter, for equality: a replayed seed must count exactly the same. */
    private java.util.List<Long> all() {
        return java.util.List.of(memberCrashes, crashesKeepingDatabase, entriesSkippedOnReplay, lostUnflushed, truncatedUncommitted,
                restartsReplaying, snapshotCatchUps, snapshots, elections, leaderLosses, answersLost, replacementsStarted, wipes, promotions,
                replacements, replacementsDuringMoves, crashesDuringReplacement, statesCompared);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SimRaftCounters c && all().equals(c.all());
    }

    @Override
    public int hashCode() {
        return all().hashCode();
    }
}
