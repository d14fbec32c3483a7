package io.cairn.replication.microraft;

import io.microraft.RaftEndpoint;
import io.microraft.RaftRole;
import io.microraft.model.message.PreVoteRequest;
import io.microraft.model.message.RaftMessage;
import io.microraft.model.message.VoteRequest;
import io.microraft.transport.Transport;

/**
 * The transport as MicroRaft sees it, less the vote requests of a learner. MicroRaft 0.7 runs a
 * pre-vote when a node starts, learner or not: harmless (voters refuse it, and a learner cannot
 * become a candidate) but noise for the voters, which do not yet know a joining learner's address.
 * A learner asks for no votes until it is promoted.
 */
final class LearnerSilence implements Transport {
    private final Transport transport;
    private final ReportTracker reports;

    LearnerSilence(Transport transport, ReportTracker reports) {
        this.transport = transport;
        this.reports = reports;
    }

    @Override
    public void send(RaftEndpoint target, RaftMessage message) {
        if ((message instanceof PreVoteRequest || message instanceof VoteRequest) && reports.role() == RaftRole.LEARNER) return;
        transport.send(target, message);
    }

    @Override
    public boolean isReachable(RaftEndpoint endpoint) {
        return transport.isReachable(endpoint);
    }
}
