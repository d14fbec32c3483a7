package io.cairn.coordinator;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import io.cairn.core.topology.Topology;

import java.util.List;
import java.util.Map;

/**
 * A message to the coordinator group. On the wire each command is one UTF-8 JSON object whose
 * {@code "op"} field names it (Jackson, see {@link Codec}); the answer is a JSON {@link Reply}.
 *
 * <pre>
 * writes (Raft log, applied on every node):
 *   {"op":"INIT","topology":{...}}
 *   {"op":"PROPOSE","expectedEpoch":7,"topology":{...},"force":false,"reason":"add rs4",
 *    "actor":"ops@host","requestedAtMs":1764500000000,"leaderFindings":["..."]}
 *   {"op":"CLAIM_BOOTSTRAP","replicasetId":"rs1","incarnation":123}
 *   {"op":"REPORT_ACKNOWLEDGED","replicasetId":"rs1","acknowledged":{"s1-1":2084,"s1-2":2080}}
 *   {"op":"RECORD_DISK","nodeId":"s1-2","disk":"55b0369a-..."}
 *   {"op":"SET_SETTINGS","changes":{"rebalancer.maxBytesPerSecond":"1000000"},"actor":"ops@host"}
 * queries (StateMachine.query on the leader, never logged):
 *   {"op":"GET"}   {"op":"HISTORY"}   {"op":"WATCH","afterEpoch":7,"maxWaitMs":2000}
 *   {"op":"ACKNOWLEDGED","nodeId":"s1-2"}   {"op":"DISKS"}   {"op":"SETTINGS"}
 * </pre>
 *
 * A write carries everything its effect depends on (the caller's clock included), so applying it
 * is a pure function of the previous state and the command.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "op")
@JsonSubTypes({
        @JsonSubTypes.Type(value = Command.Init.class, name = "INIT"),
        @JsonSubTypes.Type(value = Command.Propose.class, name = "PROPOSE"),
        @JsonSubTypes.Type(value = Command.ClaimBootstrap.class, name = "CLAIM_BOOTSTRAP"),
        @JsonSubTypes.Type(value = Command.Get.class, name = "GET"),
        @JsonSubTypes.Type(value = Command.History.class, name = "HISTORY"),
        @JsonSubTypes.Type(value = Command.Watch.class, name = "WATCH"),
        @JsonSubTypes.Type(value = Command.ReportAcknowledged.class, name = "REPORT_ACKNOWLEDGED"),
        @JsonSubTypes.Type(value = Command.Acknowledged.class, name = "ACKNOWLEDGED"),
        @JsonSubTypes.Type(value = Command.RecordDisk.class, name = "RECORD_DISK"),
        @JsonSubTypes.Type(value = Command.Disks.class, name = "DISKS"),
        @JsonSubTypes.Type(value = Command.SetSettings.class, name = "SET_SETTINGS"),
        @JsonSubTypes.Type(value = Command.Settings.class, name = "SETTINGS")})
sealed interface Command {
    /** Store {@code topology} at epoch 1 unless a topology exists; answer the current one. */
    record Init(Topology topology) implements Command {}

    /**
     * Compare-and-set: publish {@code topology} at epoch {@code expectedEpoch + 1}.
     * {@code leaderFindings}: what the leader found about replicasets the change removes (set by the
     * leader, whatever the client sent; see {@link RemovalCheck}); guardrails like the others.
     */
    record Propose(long expectedEpoch, Topology topology, boolean force, String reason, String actor,
                   long requestedAtMs, List<String> leaderFindings) implements Command {
        Propose(long expectedEpoch, Topology topology, boolean force, String reason, String actor, long requestedAtMs) {
            this(expectedEpoch, topology, force, reason, actor, requestedAtMs, null);
        }

        Propose withLeaderFindings(List<String> findings) {
            return new Propose(expectedEpoch, topology, force, reason, actor, requestedAtMs, findings);
        }
    }

    /** A replicaset (at this incarnation) asks to create its initial buckets; see {@link BootstrapClaim}. */
    record ClaimBootstrap(String replicasetId, long incarnation) implements Command {}

    /**
     * A replicaset leader's record of the highest log index each member holds (issue 21): a member
     * restarted on a folder whose log ends below its record was restored from an older copy, and
     * must catch up before it votes. Kept per node, only ever raised.
     */
    record ReportAcknowledged(String replicasetId, Map<String, Long> acknowledged) implements Command {}

    /** Read the highest log index {@code nodeId} is on record as holding (0 when none). */
    record Acknowledged(String nodeId) implements Command {}

    /**
     * The disk (the identity its folder got when formatted) a caught-up storage node runs on (issue 21):
     * a node restarted on a folder of another disk (an older one put back) catches up before it votes.
     * Dropped with the node.
     */
    record RecordDisk(String nodeId, String disk) implements Command {}

    /** Read the disk recorded for each storage node. */
    record Disks() implements Command {}

    /**
     * Run-time settings (issue 25): each change sets a setting's value, or, with an empty value, drops
     * it (the config file's value applies again). Names and values are validated by the caller (the
     * coordinator's admin port, which knows which settings are live); the coordinator keeps text, so
     * a node that does not know a name ignores it rather than failing to apply.
     */
    record SetSettings(Map<String, String> changes, String actor) implements Command {}

    /** Read the run-time settings. */
    record Settings() implements Command {}

    /** Read the current state. */
    record Get() implements Command {}

    /** Read the stored topologies, oldest first, the current one last. */
    record History() implements Command {}

    /** Long-poll: answer once the epoch exceeds {@code afterEpoch}, or after {@code maxWaitMs}. */
    record Watch(long afterEpoch, long maxWaitMs) implements Command {}
}
