package io.cairn.router;

import io.cairn.client.DataPlaneClient;
import io.cairn.core.BucketHasher;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpCodec;
import io.cairn.core.move.SendMove;
import io.cairn.core.testing.StallingProxy;
import io.cairn.core.topology.BootstrapPlanner;
import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.topology.Topology;
import io.cairn.core.wire.DataPlane;
import io.cairn.core.wire.StorageRequest;
import io.cairn.rebalancer.DataPlaneMovePort;
import io.cairn.storage.StorageNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 28: a bucket move whose destination stops reading (a relay in front of its data port that
 * stops reading, as a stalled host would) holds the mover to its data-plane high-water mark,
 * however often its chunk is re-sent, and ends with every key once the destination reads again.
 */
class SlowDestinationTest {
    private static final int BUCKETS = 30;
    private static final int KEYS = 1_200;
    private static final int VALUE_BYTES = 32 << 10;

    @TempDir
    Path dir;

    @Test
    @Timeout(240)
    void aDestinationThatStopsReadingHoldsTheMoverToItsHighWaterMarkAndTheMoveEndsWithEveryKey() throws Exception {
        ScheduledExecutorService driver = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "slow-destination-driver");
            t.setDaemon(true);
            return t;
        });
        try (TestCluster cluster = new TestCluster(dir, 2, 1, BUCKETS).start().bootstrap()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> cluster.leaderOf("rs1") != null && cluster.leaderOf("rs2") != null);
            String tag = tagOwnedBy(cluster.topology, "rs1");
            int bucket = BucketHasher.bucketOf(tag.getBytes(StandardCharsets.UTF_8), BUCKETS);
            write(cluster.leaderOf("rs1"), bucket, tag); // about 38 MB

            StorageNode destination = cluster.leaderOf("rs2");
            int destinationPort = Integer.parseInt(destination.dataPlaneEndpoint().substring(destination.dataPlaneEndpoint().lastIndexOf(':') + 1));
            try (StallingProxy relay = new StallingProxy(destinationPort)) {
                DataPlaneMovePort port = new DataPlaneMovePort(driver);
                driver.submit(() -> port.setTopology(withDataPort(cluster.topology, "rs2", relay.port()))).get(10, TimeUnit.SECONDS);
                relay.stopReading();
                CompletableFuture<SendMove> done = new CompletableFuture<>();
                driver.execute(() -> SendMove.start(bucket, "rs1", "rs2", port, SendMove.Limits.defaults(), done::complete));

                // a chunk is at most 1 MB; its re-sent copies wait once the connection holds the mark
                long bound = DataPlaneClient.UNSENT_HIGH_WATER_BYTES + (2L << 20);
                await("the mover's attempts wait at the mark").atMost(90, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(200)).until(() -> {
                    DataPlaneMovePort.Backlog b = driver.submit(port::backlog).get(10, TimeUnit.SECONDS);
                    assertThat(b.unsentBytes()).as("unsent now").isLessThanOrEqualTo(bound);
                    return b.deferredAttempts() >= 3;
                });
                DataPlaneMovePort.Backlog held = driver.submit(port::backlog).get(10, TimeUnit.SECONDS);
                System.out.printf("stalled destination: mover peak unsent %.1f MB (bound %d MB), %d attempts waited%n",
                        held.peakUnsentBytes() / 1048576.0, bound >> 20, held.deferredAttempts());
                assertThat(held.peakUnsentBytes()).as("the most one connection held unsent")
                        .isGreaterThan(DataPlaneClient.UNSENT_HIGH_WATER_BYTES).isLessThanOrEqualTo(bound);
                assertThat(done).as("the move waits for the destination").isNotDone();

                relay.resumeReading();
                SendMove move = done.get(120, TimeUnit.SECONDS);
                if (move.result() != SendMove.Result.MOVED) {
                    // a copy the stall made the destination refuse is rolled back, and a mover starts it again
                    System.out.printf("first attempt %s: %s; moving again%n", move.result(), move.detail());
                    CompletableFuture<SendMove> again = new CompletableFuture<>();
                    driver.execute(() -> SendMove.start(bucket, "rs1", "rs2", port, SendMove.Limits.defaults(), again::complete));
                    move = again.get(120, TimeUnit.SECONDS);
                }
                assertThat(move.result()).as(move.detail()).isEqualTo(SendMove.Result.MOVED);
                assertThat(move.keysSent()).isEqualTo(KEYS);
                assertEveryKey(destination, bucket, tag);
                driver.submit(port::close).get(10, TimeUnit.SECONDS);
            }
        } finally {
            driver.shutdownNow();
        }
    }

    /** A hash tag whose bucket the bootstrap gave to {@code replicaset}. */
    private static String tagOwnedBy(Topology topology, String replicaset) {
        BootstrapPlanner.Range range = BootstrapPlanner.plan(topology.bucketCount(), topology.replicasets()).get(replicaset);
        for (int i = 0; ; i++) {
            int b = BucketHasher.bucketOf(("t" + i).getBytes(StandardCharsets.UTF_8), topology.bucketCount());
            if (b >= range.first() && b <= range.last()) return "t" + i;
        }
    }

    private static byte[] key(String tag, int i) {
        return ("{" + tag + "}" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(int i) {
        byte[] v = new byte[VALUE_BYTES];
        Arrays.fill(v, (byte) ('a' + i % 26));
        System.arraycopy(Integer.toString(i).getBytes(StandardCharsets.UTF_8), 0, v, 0, Integer.toString(i).length());
        return v;
    }

    private static void write(StorageNode leader, int bucket, String tag) throws Exception {
        UUID client = UUID.randomUUID();
        AtomicLong callIds = new AtomicLong();
        try (RawConnection conn = new RawConnection(leader.dataPlaneEndpoint())) {
            for (int from = 0; from < KEYS; from += 16) {
                List<KvOp> ops = new ArrayList<>();
                for (int i = from; i < Math.min(KEYS, from + 16); i++) ops.add(KvOp.set(bucket, key(tag, i), value(i)));
                byte[] write = StorageRequest.write(ops);
                // a leader not ready yet answers RETRY (nothing submitted): the same call goes again
                DataPlane.Response r = await().atMost(Duration.ofSeconds(20))
                        .until(() -> conn.call(callIds.incrementAndGet(), client, DataPlane.WRITE, write), x -> x.status() != DataPlane.RETRY);
                assertThat(r.status()).as(r.text()).isEqualTo(DataPlane.OK);
            }
        }
    }

    private static void assertEveryKey(StorageNode node, int bucket, String tag) throws Exception {
        UUID client = UUID.randomUUID();
        try (RawConnection conn = new RawConnection(node.dataPlaneEndpoint())) {
            for (int i = 0; i < KEYS; i++) {
                DataPlane.Response r = conn.call(i + 1, client, DataPlane.READ, StorageRequest.read(List.of(KvOp.get(bucket, key(tag, i)))));
                assertThat(r.status()).as(r.text()).isEqualTo(DataPlane.OK);
                assertThat(OpCodec.decodeResults(r.body()).get(0).bytes()).as("key %d", i).isEqualTo(value(i));
            }
        }
    }

    /** The topology with {@code replicaset}'s one node's data port replaced (the mover dials the relay). */
    private static Topology withDataPort(Topology t, String replicaset, int dataPort) {
        List<ReplicasetSpec> sets = new ArrayList<>();
        for (ReplicasetSpec rs : t.replicasets()) {
            if (!rs.id().equals(replicaset)) {
                sets.add(rs);
                continue;
            }
            NodeAddress n = rs.nodes().get(0);
            sets.add(new ReplicasetSpec(rs.id(), rs.weight(), List.of(new NodeAddress(n.id(), n.host(), n.raftPort(), n.adminPort(), dataPort))));
        }
        return new Topology(t.epoch(), t.bucketCount(), t.coordinators(), sets, t.routers());
    }
}
