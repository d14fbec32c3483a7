package io.cairn.sim;

import io.cairn.core.BucketRecord;

import java.util.List;
import java.util.Random;

/**
 * Clients writing unique values to random keys of random buckets, one write at a time each,
 * with bounded retries. The route is the replicaset that holds the bucket ACTIVE/PINNED right
 * now, asked of the model (the router is not under test here); the replicaset itself decides at
 * apply time whether the bucket still serves writes. Acknowledged writes are counted; what must
 * survive is checked by {@link Invariants} from what the replicasets applied.
 */
final class SimClients {
    static final int KEYS_PER_BUCKET = 6;
    private static final int MAX_ATTEMPTS = 8;

    private final SimScheduler scheduler;
    private final SimNetwork network;
    private final Random random;
    private final List<SimReplicaset> replicasets;
    private final int bucketCount;
    private final int avoidBucket;
    private boolean running = true;
    private long acknowledged;
    private long gaveUp;
    private long counter;

    SimClients(SimScheduler scheduler, SimNetwork network, Random random, List<SimReplicaset> replicasets, int bucketCount,
               int avoidBucket) {
        this.scheduler = scheduler;
        this.network = network;
        this.random = random;
        this.replicasets = replicasets;
        this.bucketCount = bucketCount;
        this.avoidBucket = avoidBucket;
    }

    void start(int clients) {
        for (int c = 0; c < clients; c++) {
            int client = c;
            scheduler.after(random.nextInt(20), "client " + c + " starts", () -> next(client));
        }
    }

    void stop() {
        running = false;
    }

    long acknowledged() {
        return acknowledged;
    }

    long gaveUp() {
        return gaveUp;
    }

    private void next(int client) {
        if (!running) return;
        int bucket = 1 + random.nextInt(bucketCount);
        if (bucket == avoidBucket) bucket = bucket == 1 ? 2 : bucket - 1;
        String key = "b" + bucket + "-k" + random.nextInt(KEYS_PER_BUCKET);
        String value = "c" + client + "-v" + (++counter);
        attempt(client, bucket, key, value, 1);
    }

    private void attempt(int client, int bucket, String key, String value, int n) {
        if (n > MAX_ATTEMPTS) {
            gaveUp++;
            thinkThenNext(client);
            return;
        }
        SimReplicaset owner = writableOwner(bucket);
        if (owner == null) {
            scheduler.after(10, "client " + client + " waits for a route", () -> attempt(client, bucket, key, value, n + 1));
            return;
        }
        network.<Boolean>propose(SimNetwork.OUTSIDE, owner.id, "client " + client + " write " + key + "=" + value + " to " + owner.id,
                SimEntry.write(0, bucket, key, value), applied -> {
                    if (applied != null && applied) {
                        acknowledged++;
                        thinkThenNext(client);
                    } else {
                        scheduler.after(5, "client " + client + " retries", () -> attempt(client, bucket, key, value, n + 1));
                    }
                }, () -> running);
    }

    private void thinkThenNext(int client) {
        scheduler.after(1 + random.nextInt(20), "client " + client + " thinks", () -> next(client));
    }

    private SimReplicaset writableOwner(int bucket) {
        for (SimReplicaset rs : replicasets) {
            BucketRecord r = rs.record(bucket);
            if (r != null && r.state().servesWrites()) return rs;
        }
        return null;
    }
}
