package io.cairn.router;

import java.util.List;
import java.util.Set;
import java.util.SortedSet;

/**
 * Which suspected doubled buckets are worth asking the replicaset leaders about. A move hands a
 * bucket over between two answers of one discovery round: this router may read the new owner
 * ACTIVE while its last answer from the old owner still says ACTIVE too, a suspicion that the
 * next round clears. So a suspicion counts only once a round that started after it was seen
 * still finds it; a real doubled bucket (a restored old copy) stays suspected and is verified one
 * round later. Plain object, called once per completed round from one thread.
 */
final class SuspectRounds {
    private Set<Integer> seenLastRound = Set.of();
    private boolean unconfirmed;

    /** Takes the buckets suspected after a complete round; returns those also suspected after the round before. */
    List<Integer> confirmed(SortedSet<Integer> suspected) {
        List<Integer> confirmed = suspected.stream().filter(seenLastRound::contains).toList();
        unconfirmed = confirmed.size() < suspected.size();
        seenLastRound = Set.copyOf(suspected);
        return confirmed;
    }

    /** Some suspicion of the last round awaits the round that confirms or clears it: run it soon. */
    boolean awaitingConfirmation() {
        return unconfirmed;
    }
}
