package io.cairn.router;

import io.cairn.core.BucketRecord;
import io.cairn.core.wire.DiscoveryCursor;
import io.cairn.core.wire.DiscoveryPage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

/**
 * The discovery cursor of one replicaset: (incarnation, last BSN seen, history hash there). A
 * round asks only for records changed after the cursor, page by page; a "resync" answer (other
 * incarnation, cursor below the tombstone horizon, or a history the replicaset no longer has
 * after a restore from an old copy) drops what we believed about this replicaset and starts over.
 *
 * <p>Plain logic: the pages come from a {@link PageSource} (the replicaset's data plane in
 * production, a simulated replicaset in cairn-sim) and time from a {@link RouterClock}. Everything
 * runs on the clock's driver thread: answers are handed to it, so the cursor needs no lock. A page
 * unanswered within the page timeout ends the round (the next round asks again from the same
 * cursor, nothing learned is lost); its late answer is ignored. Counters are published after every
 * page as one {@link DiscoveryStats} for other threads.
 */
final class Discovery {
    private static final Logger log = LoggerFactory.getLogger(Discovery.class);

    /** Where one replicaset's discovery pages come from. */
    interface PageSource {
        /** The encoded {@link DiscoveryPage} of records changed after {@code after}, at most {@code pageLimit}. */
        CompletableFuture<ByteBuffer> discover(DiscoveryCursor after, int pageLimit);
    }

    private final String replicaset;
    private final PageSource source;
    private final RouteMap routes;
    private final int pageLimit;
    private final long pageTimeoutNs;
    private final RouterClock clock;
    private DiscoveryCursor cursor = DiscoveryCursor.START;
    private long lastBsn;
    /** The round in flight, or null. */
    private CompletableFuture<Void> round;
    /** Number of the page asked for last: an answer to an older one is late and ignored. */
    private long pageNumber;
    private long rounds;
    private long resyncs;
    private long records;
    private long pages;
    private long bytes;
    private volatile DiscoveryStats stats = new DiscoveryStats(0, 0, 0, 0, 0, 0, 0);

    Discovery(String replicaset, PageSource source, RouteMap routes, int pageLimit, Duration pageTimeout, RouterClock clock) {
        this.replicaset = replicaset;
        this.source = source;
        this.routes = routes;
        this.pageLimit = pageLimit;
        this.pageTimeoutNs = pageTimeout.toNanos();
        this.clock = clock;
    }

    /**
     * Starts a round unless one is in flight (then completes at once); the future completes when
     * the replicaset has no more changes for us, or the round failed. Driver thread only.
     */
    CompletableFuture<Void> round() {
        if (round != null) return CompletableFuture.completedFuture(null);
        round = new CompletableFuture<>();
        rounds++;
        CompletableFuture<Void> started = round;
        requestPage();
        return started;
    }

    private void requestPage() {
        long number = ++pageNumber;
        // Bounded: a page that never answers must not hold the round (and every later one) forever.
        clock.schedule(pageTimeoutNs, () -> {
            if (number == pageNumber && round != null) endRound(new TimeoutException("no discovery page within " + pageTimeoutNs / 1_000_000 + " ms"));
        });
        CompletableFuture<ByteBuffer> answer;
        try {
            answer = source.discover(cursor, pageLimit);
        } catch (RuntimeException e) {
            endRound(e);
            return;
        }
        answer.whenComplete((reply, e) -> clock.execute(() -> onAnswer(number, reply, e)));
    }

    private void onAnswer(long number, ByteBuffer reply, Throwable failure) {
        if (number != pageNumber || round == null) return; // late: its round timed out
        if (failure != null) {
            endRound(failure);
            return;
        }
        pages++;
        bytes += reply.remaining();
        boolean more;
        try {
            more = accept(DiscoveryPage.decode(reply));
        } catch (RuntimeException malformed) {
            endRound(malformed);
            return;
        }
        publish();
        if (more) requestPage();
        else endRound(null);
    }

    private void endRound(Throwable failure) {
        CompletableFuture<Void> ended = round;
        round = null;
        publish();
        if (failure != null) log.debug("discovery of {} failed: {}", replicaset, failure.toString());
        ended.complete(null);
    }

    private boolean accept(DiscoveryPage page) {
        if (page.resync()) {
            if (cursor.incarnation() > 0) { // not our first contact, nor a replicaset that was still empty
                resyncs++;
                log.info("replicaset {} asked for a full resync (cursor {} -> incarnation {}, horizon {}, last BSN {})", replicaset,
                        cursor, page.incarnation(), page.horizonBsn(), page.lastBsn());
            }
            routes.forget(replicaset);
        }
        for (BucketRecord r : page.records()) routes.learn(replicaset, r);
        records += page.records().size();
        cursor = page.next();
        lastBsn = page.lastBsn();
        return page.more();
    }

    private void publish() {
        stats = new DiscoveryStats(rounds, records, resyncs, cursor.bsn(), pages, bytes, Math.max(0, lastBsn - cursor.bsn()));
    }

    /** What this discovery has done, as of its last page (any thread). */
    DiscoveryStats stats() {
        return stats;
    }
}
