package io.cairn.core.move;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.move.MoveCommand.AbortReceive;
import io.cairn.core.move.MoveCommand.Activate;
import io.cairn.core.move.MoveQuery.MoveStatus;
import io.cairn.core.rebalance.Plan;
import io.cairn.core.rebalance.PlanLimits;
import io.cairn.core.rebalance.RebalancePlanner;
import io.cairn.core.rebalance.ReplicasetPhase;
import io.cairn.core.rebalance.ReplicasetLoad;
import io.cairn.core.rebalance.Route;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The cluster's one rebalancer and move driver (it runs on the coordinator leader). Each
 * {@link #round} it asks every replicaset for its {@link MoveStatus}, then:
 * <ol>
 *   <li>recovers unfinished moves it is not driving (a previous driver died): SENDING and
 *       undropped SENT records resume as {@link SendMove}s, copies ahead are abandoned; a
 *       RECEIVING copy whose source is SENT is activated, one whose source owns the bucket
 *       again (or is still copying it ahead) is fenced;</li>
 *   <li>plans with {@link RebalancePlanner} from the weights and starts moves within the
 *       per-replicaset send and receive limits, then the queued manual moves.</li>
 * </ol>
 * Rounds do not wait for the cluster to be quiet: moves already in flight count in the plan.
 * Pure: time and I/O only through {@link MovePort}; single-threaded.
 */
public final class Mover {
    /** Weights and the bucket count from the coordinator's epoch {@code epoch}. */
    public record Layout(long epoch, int bucketCount, Map<String, Double> weights) {}

    /**
     * @param planEpoch the epoch the last plan was made for (0 before the first plan)
     * @param balanced  the last plan is within the threshold and no move is in flight
     * @param writesHeld how long the last moves (up to 1,024) refused writes to their bucket
     * @param stepRetries steps the ended moves tried again (each after {@link SendMove.Limits#retryDelayMs})
     * @param held      buckets each replicaset owned, sent or received at the last round
     * @param phases    each replicaset's {@link ReplicasetPhase}
     */
    public record Progress(long planEpoch, boolean balanced, double disbalancePercent, int bucketsToMove, long moved, long rolledBack, int inFlight,
                           long keysMoved, Map<String, Integer> targets, List<String> problems, RecentDurations.Summary writesHeld,
                           long stepRetries, Map<String, Integer> held, Map<String, ReplicasetPhase> phases) {}

    private final MovePort port;
    private PlanLimits planLimits;
    private final SendMove.Limits moveLimits;
    private boolean autoRebalance;
    private Layout layout = new Layout(0, 0, Map.of());
    /** Buckets each replicaset owned, sent or received at the last round that heard from it. */
    private final Map<String, Integer> held = new HashMap<>();
    private long planEpoch;
    private final Map<Integer, SendMove> inFlight = new HashMap<>();
    /** Manual moves waiting for the next round: bucket -> destination (a later request replaces an earlier one). */
    private final Map<Integer, String> manualQueue = new LinkedHashMap<>();
    /**
     * Buckets a hand-made move put where they are: bucket -> that destination. The planner evens the
     * counts out with other buckets, else it would send the lowest-numbered bucket of the fuller
     * replicaset back, which is often the one just moved. Forgotten when the rebalancer restarts
     * elsewhere (pin a bucket to keep it in place for good); the oldest go past {@link #PLACED_BY_HAND_MAX}.
     */
    private final Map<Integer, String> placedByHand = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Integer, String> eldest) {
            return size() > PLACED_BY_HAND_MAX;
        }
    };
    static final int PLACED_BY_HAND_MAX = 4096;
    /** Bucket -> the round it last rolled back in; such a bucket rests a few rounds before it is tried again. */
    private final Map<Integer, Long> rolledBackAt = new HashMap<>();
    private static final long ROUNDS_TO_REST_AFTER_ROLLBACK = 10;
    private long rounds;
    /** Bucket -> the round during which its move (driven here) ended; that round's statuses may predate the end. */
    private final Map<Integer, Long> endedInRound = new HashMap<>();
    private int overCountRounds;
    private int underCountRounds;
    private boolean bootstrapComplete;
    private long statusRound;
    private static final int DOUBLED_AFTER_ROUNDS = 3;
    private boolean roundRunning;
    private long moved;
    private long rolledBack;
    private long keysMoved;
    private long stepRetries;
    private final RecentDurations writesHeld = new RecentDurations();
    private Plan lastPlan;
    private List<String> problems = List.of();
    /**
     * A move that took no step for this long is reported (STALLED_MOVE): the port answers or gives
     * up on every call within 15 s, and retries pause 200 ms, so only a lost answer (a bug) or a
     * copy waiting for a tiny transfer budget gets here.
     */
    static final long STALLED_AFTER_MS = 20_000;
    /** The kind of problem (the text before its colon) reported for such a move. */
    public static final String STALLED_MOVE = "STALLED_MOVE";

    public Mover(MovePort port, PlanLimits planLimits, SendMove.Limits moveLimits, boolean autoRebalance) {
        this.port = port;
        this.planLimits = planLimits;
        this.moveLimits = moveLimits;
        this.autoRebalance = autoRebalance;
    }

    /**
     * New planning bounds and automatic rebalancing on or off, from the next round on (run-time
     * settings, cairn config set). Moves in flight go on; a lower limit only stops new ones.
     */
    public void setPlanning(PlanLimits limits, boolean auto) {
        this.planLimits = java.util.Objects.requireNonNull(limits);
        this.autoRebalance = auto;
    }

    public void setLayout(Layout layout) {
        this.layout = layout;
    }

    /**
     * Whether every replicaset has created its initial buckets (the coordinator knows). Only then
     * do missing buckets mean something was lost rather than "bootstrap not finished yet".
     */
    public void setBootstrapComplete(boolean complete) {
        this.bootstrapComplete = complete;
    }

    /** Queues a hand-made move of {@code bucket} to {@code destination}; it starts at the next round. */
    public void requestMove(int bucket, String destination) {
        manualQueue.put(bucket, destination);
    }

    public Progress progress() {
        Plan p = lastPlan;
        boolean balanced = p != null && inFlight.isEmpty() && RebalancePlanner.converged(p, planLimits);
        Map<String, Integer> targets = p == null ? Map.of() : p.targets();
        Map<String, ReplicasetPhase> phases = new java.util.TreeMap<>();
        for (var e : layout.weights().entrySet()) {
            Integer h = held.get(e.getKey());
            if (h != null) phases.put(e.getKey(), ReplicasetPhase.of(e.getValue(), h, targets.getOrDefault(e.getKey(), -1), balanced));
        }
        return new Progress(planEpoch, balanced, p == null ? 0 : p.disbalancePercent(), p == null ? 0 : p.bucketsToMove(), moved, rolledBack,
                inFlight.size(), keysMoved, targets, problems, writesHeld.summary(), stepRetries, Map.copyOf(held), phases);
    }

    /**
     * Every replicaset's record of {@code bucket} (absent ones omitted), delivered once all
     * answered or failed; {@code null} values mark replicasets that did not answer.
     */
    public void locate(int bucket, Consumer<Map<String, BucketRecord>> answer) {
        List<String> ids = new ArrayList<>(layout.weights().keySet());
        ids.sort(null);
        Map<String, BucketRecord> found = new LinkedHashMap<>();
        int[] pending = {ids.size()};
        if (ids.isEmpty()) answer.accept(found);
        for (String id : ids) {
            port.digest(id, bucket, d -> {
                if (d == null) found.put(id, null);
                else if (d.record() != null) found.put(id, d.record());
                if (--pending[0] == 0) answer.accept(found);
            });
        }
    }

    /** Pins (or unpins) {@code bucket} on the replicaset that owns it; answers with the outcome in words. */
    public void pin(int bucket, boolean pinned, Consumer<String> answer) {
        locate(bucket, records -> {
            for (var e : records.entrySet()) {
                BucketRecord r = e.getValue();
                if (r != null && (r.state() == BucketState.ACTIVE || r.state() == BucketState.PINNED)) {
                    port.submit(e.getKey(), new MoveCommand.Pin(bucket, pinned), reply -> {
                        if (reply == null || reply.outcome() == MoveReply.Outcome.UNAVAILABLE) {
                            answer.accept("unknown: " + e.getKey() + " did not answer; check with `cairn bucket show " + bucket + "`");
                        } else {
                            answer.accept(reply.isOk() ? "bucket " + bucket + " is " + reply.record().state() + " on " + e.getKey()
                                    : "refused: " + reply.message());
                        }
                    });
                    return;
                }
            }
            answer.accept("refused: no replicaset owns bucket " + bucket + " as ACTIVE or PINNED right now");
        });
    }

    /** Moves this driver is running, by bucket. */
    public Map<Integer, SendMove> inFlight() {
        return Map.copyOf(inFlight);
    }

    /** Starts one round unless the previous one is still collecting answers. */
    public void round() {
        if (roundRunning || layout.weights().isEmpty()) return;
        roundRunning = true;
        rounds++;
        rolledBackAt.values().removeIf(r -> r + ROUNDS_TO_REST_AFTER_ROLLBACK < rounds);
        List<String> ids = new ArrayList<>(layout.weights().keySet());
        ids.sort(null);
        Map<String, MoveStatus> statuses = new LinkedHashMap<>();
        int[] pending = {ids.size()};
        for (String id : ids) {
            int candidates = 4 * Math.max(planLimits.maxSendingPerReplicaset(), 1) + manualQueue.size() + placedByHand.size();
            port.status(id, candidates, s -> {
                if (s != null) statuses.put(id, s);
                if (--pending[0] == 0) {
                    roundRunning = false;
                    onStatuses(ids, statuses);
                }
            });
        }
    }

    private void onStatuses(List<String> ids, Map<String, MoveStatus> statuses) {
        statusRound = rounds;
        held.keySet().retainAll(ids);
        statuses.forEach((id, s) -> held.put(id, s.active() + s.pinned() + s.sending() + s.receiving()));
        endedInRound.values().removeIf(r -> r < rounds - 1);
        List<String> found = new ArrayList<>();
        for (String id : ids) if (!statuses.containsKey(id)) found.add("replicaset " + id + " did not answer");
        statuses.forEach(this::recover);
        // Writable copies, not SENDING ones: a copied bucket's destination is ACTIVE before its source is SENT.
        int owned = statuses.values().stream().mapToInt(MoveStatus::writable).sum();
        boolean overCount = statuses.size() == ids.size() && owned > layout.bucketCount();
        // Statuses are answered at slightly different moments, so a move finishing between two
        // answers can be counted twice once; a real double persists round after round.
        overCountRounds = overCount ? overCountRounds + 1 : 0;
        if (overCountRounds >= DOUBLED_AFTER_ROUNDS) {
            found.add("DOUBLED_BUCKETS: replicasets own " + owned + " buckets, bucket_count is " + layout.bucketCount());
        }
        // A moving bucket can be writable nowhere (SENDING, or SENT before Activate): only a shortfall
        // that persists while nothing is in flight anywhere means buckets are missing.
        boolean quiet = statuses.values().stream().allMatch(st -> st.unfinished().isEmpty());
        boolean underCount = statuses.size() == ids.size() && owned < layout.bucketCount() && quiet;
        underCountRounds = underCount ? underCountRounds + 1 : 0;
        if (underCountRounds >= DOUBLED_AFTER_ROUNDS && bootstrapComplete) {
            found.add("MISSING_BUCKETS: replicasets own " + owned + " buckets, bucket_count is " + layout.bucketCount()
                    + " (bootstrap finished)");
        }
        long now = port.nowMs();
        for (SendMove m : inFlight.values()) {
            long idleMs = now - m.lastStepMs();
            if (idleMs >= STALLED_AFTER_MS) {
                found.add(STALLED_MOVE + ": bucket " + m.bucket() + " (" + m.source() + " -> " + m.destination() + ") has taken no step for "
                        + idleMs / 1000 + " s in " + m.phase() + " (" + m.keysSent() + " keys sent)");
            }
        }
        problems = found;
        // A replicaset that did not answer may hold a move of a requested bucket that is not over.
        Set<Integer> unfinished = new HashSet<>();
        for (MoveStatus s : statuses.values()) for (BucketRecord r : s.unfinished()) unfinished.add(r.id());
        if (statuses.size() == ids.size()) startManualMoves(statuses, unfinished);
        // Like vshard, never plan from counts that do not add up: moving a doubled bucket would stall.
        if (autoRebalance && statuses.size() == ids.size() && !overCount) plan(ids, statuses, unfinished);
    }

    private void recover(String replicaset, MoveStatus status) {
        for (BucketRecord r : status.unfinished()) {
            if (inFlight.containsKey(r.id()) || endedInRound.getOrDefault(r.id(), -1L) >= statusRound) continue;
            if (r.state() == BucketState.RECEIVING) {
                recoverReceiving(replicaset, r);
                continue;
            }
            SendMove m = SendMove.resume(r, replicaset, port, moveLimits, this::onMoveDone);
            if (m != null && m.phase() != SendMove.Phase.DONE) inFlight.put(r.id(), m);
        }
    }

    /** A RECEIVING copy nobody drives: act on its source's replicated state, or wait for the source's own recovery. */
    private void recoverReceiving(String destination, BucketRecord local) {
        port.digest(local.peer(), local.id(), d -> {
            if (d == null || d.record() == null || inFlight.containsKey(local.id())) return;
            BucketRecord src = d.record();
            boolean atItsGeneration = src.generation() == local.generation();
            if (src.state() == BucketState.SENT && atItsGeneration) {
                port.submit(destination, new Activate(local.id(), local.generation()), reply -> { });
            } else if (!(src.state() == BucketState.SENDING && atItsGeneration)) {
                // The source kept the bucket (rolled back, contained), moved on, or is copying it ahead
                // with no driver left: this copy will never be activated. A SENDING source recovers itself.
                port.submit(destination, new AbortReceive(local.id(), local.generation()), reply -> { });
            }
        });
    }

    /** @param unfinished buckets listed unfinished by any replicaset */
    private void startManualMoves(Map<String, MoveStatus> statuses, Set<Integer> unfinished) {
        Map<Integer, String> requested = new LinkedHashMap<>(manualQueue);
        manualQueue.clear();
        for (var request : requested.entrySet()) {
            int bucket = request.getKey();
            String destination = request.getValue();
            // a weight-0 replicaset receives nothing (it drains), even for a request made before its weight changed
            if (layout.weights().getOrDefault(destination, 0.0) <= 0) continue;
            SendMove moving = inFlight.get(bucket);
            if (moving != null) {
                // the rebalancer is moving it: to the requested place it is this move; elsewhere, ask again after it
                if (moving.destination().equals(destination)) manual.add(bucket);
                else manualQueue.putIfAbsent(bucket, destination);
                continue;
            }
            if (unfinished.contains(bucket)) {
                manualQueue.putIfAbsent(bucket, destination); // its last move is not over (e.g. a source not yet SENT)
                continue;
            }
            String source = null;
            for (var e : statuses.entrySet()) if (e.getValue().candidates().contains(bucket)) source = e.getKey();
            if (source == null) {
                locateAndMove(bucket, destination, new ArrayList<>(statuses.keySet()));
            } else if (!source.equals(destination)) {
                manual.add(bucket);
                startMove(bucket, source, destination);
            } else {
                placedByHand.put(bucket, destination); // already there: keep it there
            }
        }
    }

    /** The bucket was not among the candidates listed: ask each replicaset for it. */
    private void locateAndMove(int bucket, String destination, List<String> ids) {
        for (String id : ids) {
            port.digest(id, bucket, d -> {
                if (d != null && d.record() != null && d.record().state() == BucketState.ACTIVE
                        && !id.equals(destination) && !inFlight.containsKey(bucket)) {
                    manual.add(bucket);
                    startMove(bucket, id, destination);
                }
            });
        }
    }

    private void plan(List<String> ids, Map<String, MoveStatus> statuses, Set<Integer> listed) {
        // A replicaset removed from the layout while this round's answers came in: the next round plans on the new layout.
        if (!layout.weights().keySet().containsAll(ids)) return;
        // A bucket in flight counts at its destination from StartSend on: before its first chunk
        // lands it is SENDING at the source and not yet RECEIVING anywhere.
        Map<String, Set<Integer>> incoming = new HashMap<>();
        for (var e : statuses.entrySet()) {
            for (BucketRecord r : e.getValue().unfinished()) {
                String to = MoveStatus.isLeaving(r) ? r.peer() : r.state() == BucketState.RECEIVING ? e.getKey() : null;
                if (to != null) incoming.computeIfAbsent(to, k -> new HashSet<>()).add(r.id());
            }
        }
        // A move started here that no answer lists: its source answered before applying StartSend,
        // so the bucket still counts as ACTIVE there, even if the StartSend has been confirmed since
        // (answers arrive late). It is leaving (a send) and arriving at its destination, or this plan
        // moves a second bucket for the same shortfall. Counted until the destination activates it.
        Map<String, Integer> leaving = new HashMap<>();
        for (SendMove m : inFlight.values()) {
            if (!m.beforeActivation() || listed.contains(m.bucket())) continue;
            leaving.merge(m.source(), 1, Integer::sum);
            incoming.computeIfAbsent(m.destination(), k -> new HashSet<>()).add(m.bucket());
        }
        List<ReplicasetLoad> loads = new ArrayList<>();
        for (String id : ids) {
            MoveStatus s = statuses.get(id);
            int arriving = Math.max(s.receiving(), incoming.getOrDefault(id, Set.of()).size());
            int left = Math.min(s.active(), leaving.getOrDefault(id, 0));
            loads.add(new ReplicasetLoad(id, layout.weights().get(id), s.active() - left, s.pinned(), s.sending() + left, arriving));
        }
        Plan plan;
        try {
            plan = RebalancePlanner.plan(loads, layout.bucketCount(), planLimits);
        } catch (IllegalArgumentException e) {
            problems = append(problems, "cannot plan: " + e.getMessage());
            return;
        }
        lastPlan = plan;
        planEpoch = layout.epoch();
        // A bucket whose last move is not over anywhere (its copied source not yet SENT) stays put.
        Set<Integer> taken = new HashSet<>(inFlight.keySet());
        taken.addAll(listed);
        for (Route route : plan.routes()) {
            // Answers taken at slightly different moments can count a bucket that just arrived twice;
            // never send from a replicaset that is receiving, or to one that is sending: such a route
            // only undoes a move in flight. The next round plans from settled counts.
            if (!incoming.getOrDefault(route.from(), Set.of()).isEmpty() || sendingFrom(route.to(), statuses, leaving) > 0) continue;
            int started = 0;
            for (int bucket : statuses.get(route.from()).candidates()) {
                if (started == route.count()) break;
                if (rolledBackAt.containsKey(bucket) || keptByHand(bucket, route.from()) || !taken.add(bucket)) continue;
                startMove(bucket, route.from(), route.to());
                started++;
            }
        }
    }

    /** A bucket a hand-made move put on {@code replicaset} stays, unless that replicaset drains (weight 0). */
    private boolean keptByHand(int bucket, String replicaset) {
        return replicaset.equals(placedByHand.get(bucket)) && layout.weights().getOrDefault(replicaset, 0.0) > 0;
    }

    private static int sendingFrom(String replicaset, Map<String, MoveStatus> statuses, Map<String, Integer> leaving) {
        return statuses.get(replicaset).sending() + leaving.getOrDefault(replicaset, 0);
    }

    private final Set<Integer> manual = new HashSet<>();

    private void startMove(int bucket, String source, String destination) {
        SendMove m = SendMove.start(bucket, source, destination, port, moveLimits, this::onMoveDone);
        if (m.phase() != SendMove.Phase.DONE) inFlight.put(bucket, m);
    }

    private void onMoveDone(SendMove m) {
        inFlight.remove(m.bucket());
        boolean wasManual = manual.remove(m.bucket());
        endedInRound.put(m.bucket(), rounds);
        if (m.writesHeldMs() >= 0) writesHeld.add(m.writesHeldMs());
        stepRetries += m.retries();
        // A freed send slot is refilled at once instead of waiting for the next timed round.
        if (autoRebalance && lastPlan != null && lastPlan.bucketsToMove() > 0) round();
        if (m.result() == SendMove.Result.MOVED) {
            moved++;
            if (wasManual) placedByHand.put(m.bucket(), m.destination());
            else placedByHand.remove(m.bucket());
            keysMoved += m.keysSent();
        } else if (m.result() == SendMove.Result.REFUSED && m.refusal() == MoveReply.Refusal.REFS_HELD && wasManual) {
            requestMove(m.bucket(), m.destination()); // a map-reduce call held the bucket; try again next round
        } else if (m.result() == SendMove.Result.ROLLED_BACK) {
            rolledBack++;
            rolledBackAt.put(m.bucket(), rounds);
        }
    }

    private static List<String> append(List<String> list, String item) {
        List<String> out = new ArrayList<>(list);
        out.add(item);
        return out;
    }
}
