package io.cairn.replication;

/** One step of a membership change; a new disk joins as a learner, catches up, then is promoted. */
public enum MembershipChange {
    ADD_LEARNER,
    PROMOTE_TO_VOTER,
    REMOVE
}
