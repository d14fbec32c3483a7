package io.cairn.replication;

/**
 * What a member holds for peers that do not take what it sends (issue 28), so an operator can see
 * a stalled follower cost the leader memory, and how much.
 *
 * @param unsentBytes     bytes written to its peers' connections and not yet taken by their sockets, now
 * @param peakUnsentBytes the most one peer's connection has held unsent since the member started
 * @param droppedBackedUp messages dropped because their peer's connection held its high-water mark
 *                        (the engine sends them again once the peer reads)
 */
public record SendBacklog(long unsentBytes, long peakUnsentBytes, long droppedBackedUp) {
    public static final SendBacklog NONE = new SendBacklog(0, 0, 0);
}
