package io.cairn.replication.microraft;

import io.cairn.core.testing.StallingProxy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 28: a follower that stops reading (here: a relay between it and the others that stops
 * reading, so the leader's socket fills as over a stalled link) slows only what is sent to it. Its
 * leader re-sends the same append request after every back-off, each a frame of about
 * {@link WireCodec#APPEND_TARGET_BYTES}; without a cap each copy would wait in the leader's heap for ever.
 */
class SlowFollowerTest {
    private static final int ENTRY_BYTES = 512 << 10;
    private static final int MAX_ENTRY_BYTES = 1 << 20;

    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void aFollowerThatStopsReadingHoldsTheLeaderToItsHighWaterMarkAndCatchesUpOnceItReads() throws Exception {
        try (TestGroup group = new TestGroup("slow", dir, 3, 10_000)) {
            group.maxEntryBytes = MAX_ENTRY_BYTES;
            String slow = "m2";
            int slowPort = Integer.parseInt(group.voters.get(slow).substring(group.voters.get(slow).lastIndexOf(':') + 1));
            try (StallingProxy relay = new StallingProxy(slowPort)) {
                group.reachedAt.put(slow, "127.0.0.1:" + relay.port());
                group.start("m0");
                group.start("m1");
                String leader = group.awaitLeader();
                group.start(slow);
                group.propose(leader, TestGroup.commands("before", 5));
                long before = group.replica(leader).status().commitIndex();
                await("the follower applies through the relay").atMost(20, TimeUnit.SECONDS)
                        .until(() -> group.machine(slow).appliedIndex() >= before);

                relay.stopReading();
                // 100 entries of 512 KB (50 MB), committed by the other two
                List<String> bulk = new ArrayList<>();
                for (int i = 0; i < 100; i++) bulk.add(i + "-" + "x".repeat(ENTRY_BYTES));
                for (int from = 0; from < bulk.size(); from += 10) group.propose(leader, bulk.subList(from, from + 10));

                MicroRaftReplica sender = group.internals(leader);
                // the mark, and one frame that may go past it
                long bound = NettyTransport.HIGH_WATER_BYTES + (long) WireCodec.APPEND_TARGET_BYTES + (1 << 20);
                // the leader keeps trying (a copy of its append every back-off, 1-2 s) and drops copies past the mark
                await("appends to the stalled follower dropped at the mark").atMost(90, TimeUnit.SECONDS)
                        .pollInterval(Duration.ofMillis(100)).until(() -> {
                            assertThat(sender.unsentBytes()).as("unsent bytes now").isLessThanOrEqualTo(bound);
                            return sender.droppedBackedUp() >= 1;
                        });
                long peak = sender.peakUnsentBytes();
                System.out.printf("stalled follower: leader peak unsent %.1f MB (bound %d MB), %d messages dropped at the mark%n",
                        peak / 1048576.0, bound >> 20, sender.droppedBackedUp());
                assertThat(peak).as("the most one connection held unsent").isGreaterThan(NettyTransport.HIGH_WATER_BYTES)
                        .isLessThanOrEqualTo(bound);
                assertThat(group.machine(slow).appliedIndex()).as("nothing reached the stalled follower").isLessThan(before + 10);

                relay.resumeReading();
                long end = group.replica(leader).status().commitIndex();
                await("the follower catches up").atMost(60, TimeUnit.SECONDS).until(() -> group.machine(slow).appliedIndex() >= end);
                assertThat(group.machine(slow).history()).isEqualTo(group.machine(leader).history());
                assertThat(group.machine(slow).reapplied()).isZero();
                await("the leader's backlog drains").atMost(20, TimeUnit.SECONDS).until(() -> sender.unsentBytes() < (1 << 20));
            }
        }
    }
}
