package io.cairn.sim;

import io.cairn.core.BucketRecord;
import io.cairn.core.doubled.DoubledVerification;
import io.cairn.core.doubled.SelfCheckSchedule;
import io.cairn.core.move.MoveCommand;
import io.cairn.core.move.MovePort;
import io.cairn.core.move.MoveQuery;
import io.cairn.core.move.MoveReply;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;

/**
 * The storage leaders' doubled-bucket verification under the simulator: one production
 * {@link DoubledVerification} per replicaset, ticked every 50-150 ms, reaching the other
 * replicasets through the faulty network. Each tick it is also asked about the suspected bucket,
 * as a router's Verify request would, and its self-check walks the rest at 40 buckets per second.
 * Only the I/O is simulated; the decision, batching and the Contain command are cairn-core's.
 */
final class SimVerifier {
    private static final int SELF_CHECK_BUCKETS_PER_SECOND = 40;
    private static final int MAX_BATCH = 8;

    private final SimScheduler scheduler;
    private final SimNetwork network;
    private final Random random;
    private final List<SimReplicaset> replicasets;
    private final int suspected;
    private final List<DoubledVerification> verifications = new ArrayList<>();

    SimVerifier(SimScheduler scheduler, SimNetwork network, Random random, List<SimReplicaset> replicasets, int suspected) {
        this.scheduler = scheduler;
        this.network = network;
        this.random = random;
        this.replicasets = replicasets;
        this.suspected = suspected;
    }

    void start() {
        List<String> ids = replicasets.stream().map(rs -> rs.id).toList();
        for (SimReplicaset rs : replicasets) {
            DoubledVerification v = new DoubledVerification(rs.id, new Port(rs.id), local(rs),
                    new SelfCheckSchedule(SELF_CHECK_BUCKETS_PER_SECOND, MAX_BATCH), MAX_BATCH, NO_EVENTS);
            v.setOthers(ids);
            verifications.add(v);
            schedule(v);
        }
    }

    /** Verification rounds finished (batches decided), over all replicasets. */
    long rounds() {
        return verifications.stream().mapToLong(DoubledVerification::checked).sum();
    }

    long contained() {
        return verifications.stream().mapToLong(DoubledVerification::contained).sum();
    }

    private void schedule(DoubledVerification v) {
        scheduler.after(50 + random.nextInt(100), "verifier tick", () -> {
            v.request(List.of(suspected));
            v.tick(scheduler.nowMs());
            schedule(v);
        });
    }

    /** The leader's own view: its records, while its leader is up. */
    private DoubledVerification.Local local(SimReplicaset rs) {
        return new DoubledVerification.Local() {
            @Override
            public boolean isLeader() {
                return rs.leaderUp(scheduler.nowMs());
            }

            @Override
            public Collection<BucketRecord> records() {
                List<BucketRecord> out = new ArrayList<>();
                (rs.leaderUp(scheduler.nowMs()) ? rs.leaderState() : rs).records().forEach(out::add);
                return out;
            }
        };
    }

    private static final DoubledVerification.Events NO_EVENTS = new DoubledVerification.Events() {
        @Override
        public void contained(int bucket, long generation, String reason) {}

        @Override
        public void containRefused(int bucket, String why) {}
    };

    /** The verifier's port: Contain as a log entry of its own replicaset, Inspect as a query; nothing else. */
    private final class Port implements MovePort {
        private final String owner;

        Port(String owner) {
            this.owner = owner;
        }

        @Override
        public void submit(String replicaset, MoveCommand command, Consumer<MoveReply> reply) {
            network.propose(owner, replicaset, "verifier of " + owner + " " + command, SimEntry.move(0, command), reply, () -> true);
        }

        @Override
        public void inspect(String replicaset, MoveQuery.Inspect query, Consumer<List<MoveQuery.BucketReport>> reply) {
            network.query(owner, replicaset, "verifier of " + owner + " inspects " + query.buckets() + " on " + replicaset,
                    s -> s.inspect(query), reply, () -> true);
        }

        @Override
        public void readChunk(String replicaset, MoveQuery.ReadChunk query, Consumer<MoveQuery.ChunkPage> reply) {
            throw new UnsupportedOperationException("the verifier reads no chunks");
        }

        @Override
        public void readChanges(String replicaset, MoveQuery.ReadChanges query, Consumer<MoveQuery.ChangesPage> reply) {
            throw new UnsupportedOperationException("the verifier reads no chunks");
        }

        @Override
        public void digest(String replicaset, int bucket, Consumer<MoveQuery.BucketDigest> reply) {
            throw new UnsupportedOperationException("the verifier asks for no digests");
        }

        @Override
        public void status(String replicaset, int maxCandidates, Consumer<MoveQuery.MoveStatus> reply) {
            throw new UnsupportedOperationException("the verifier asks for no statuses");
        }

        @Override
        public void after(long delayMs, Runnable task) {
            scheduler.after(delayMs, "verifier timer", task);
        }

        @Override
        public long nowMs() {
            return scheduler.nowMs();
        }
    }
}
