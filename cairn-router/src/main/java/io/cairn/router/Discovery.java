package io.cairn.router;

import io.cairn.core.BucketRecord;
import io.cairn.core.wire.DiscoveryCursor;
import io.cairn.core.wire.DiscoveryPage;
import io.cairn.core.wire.StorageRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.CompletableFuture;

/**
 * The discovery cursor of one replicaset: (incarnation, last BSN seen, history hash there). A
 * round asks only for records changed after the cursor, page by page; a "resync" answer (other
 * incarnation, cursor below the tombstone horizon, or a history the replicaset no longer has
 * after a restore from an old copy) drops what we believed about this replicaset and starts over.
 */
final class Discovery {
    private static final Logger log = LoggerFactory.getLogger(Discovery.class);

    private final ReplicasetClient client;
    private final RouteMap routes;
    private final int pageLimit;
    private final long pageTimeoutMs;
    private DiscoveryCursor cursor = DiscoveryCursor.START;
    private long lastBsn;
    private boolean inRound;
    private long rounds;
    private long resyncs;
    private long records;
    private long pages;
    private long bytes;

    Discovery(ReplicasetClient client, RouteMap routes, int pageLimit, java.time.Duration pageTimeout) {
        this.client = client;
        this.routes = routes;
        this.pageLimit = pageLimit;
        this.pageTimeoutMs = pageTimeout.toMillis();
    }

    /** One round; completes when the replicaset has no more changes for us (or failed). */
    synchronized CompletableFuture<Void> round() {
        if (inRound) return CompletableFuture.completedFuture(null);
        inRound = true;
        rounds++;
        return nextPage().whenComplete((v, e) -> {
            synchronized (this) {
                inRound = false;
            }
            if (e != null) log.debug("discovery of {} failed: {}", client.id(), e.toString());
        });
    }

    private CompletableFuture<Void> nextPage() {
        DiscoveryCursor after;
        synchronized (this) {
            after = cursor;
        }
        // Bounded: a page that never answers must not hold the round (and every later one) forever.
        return client.query(StorageRequest.discover(after, pageLimit)).orTimeout(pageTimeoutMs, java.util.concurrent.TimeUnit.MILLISECONDS)
                .thenApply(reply -> {
                    synchronized (this) {
                        pages++;
                        bytes += reply.remaining();
                    }
                    return DiscoveryPage.decode(reply);
                })
                .thenCompose(page -> {
                    boolean more = accept(page);
                    return more ? nextPage() : CompletableFuture.completedFuture(null);
                });
    }

    private synchronized boolean accept(DiscoveryPage page) {
        if (page.resync()) {
            if (cursor.incarnation() > 0) { // not our first contact, nor a replicaset that was still empty
                resyncs++;
                log.info("replicaset {} asked for a full resync (cursor {} -> incarnation {}, horizon {}, last BSN {})", client.id(),
                        cursor, page.incarnation(), page.horizonBsn(), page.lastBsn());
            }
            routes.forget(client.id());
        }
        for (BucketRecord r : page.records()) routes.learn(client.id(), r);
        records += page.records().size();
        cursor = page.next();
        lastBsn = page.lastBsn();
        return page.more();
    }

    synchronized long rounds() {
        return rounds;
    }

    synchronized long resyncs() {
        return resyncs;
    }

    synchronized long records() {
        return records;
    }

    /** Discovery requests answered (one per page). */
    synchronized long pages() {
        return pages;
    }

    /** Bytes of discovery answers received. */
    synchronized long bytes() {
        return bytes;
    }

    synchronized long cursor() {
        return cursor.bsn();
    }

    /** BSNs the replicaset had handed out beyond our cursor when it last answered. */
    synchronized long lag() {
        return Math.max(0, lastBsn - cursor.bsn());
    }
}
