package io.cairn.replication;

import java.util.Map;
import java.util.Set;

/**
 * A group's members at one log index.
 *
 * @param index     log index of the entry that made this membership (0 for the initial one)
 * @param voters    id -> address of members that vote and count toward a majority
 * @param learners  ids (among {@code addresses}) that receive the log but do not vote
 * @param committed whether the entry that made it is committed
 */
public record Membership(long index, Map<String, String> voters, Set<String> learners, Map<String, String> addresses, boolean committed) {
    public Membership {
        voters = Map.copyOf(voters);
        learners = Set.copyOf(learners);
        addresses = Map.copyOf(addresses);
    }
}
