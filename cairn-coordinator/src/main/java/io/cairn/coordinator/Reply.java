package io.cairn.coordinator;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.topology.Topology;

import java.util.List;
import java.util.Map;

/**
 * The answer to a {@link Command}. A refusal is a value ({@code error} and {@code message} set),
 * never an exception thrown inside the state machine, so every node computes the same answer.
 * Unused fields are null and left out of the JSON.
 */
record Reply(ErrorCode error, String message, CoordinatorState state, BootstrapClaim claim,
             List<Topology> history, Long acknowledged, Map<String, String> disks,
             Map<String, String> settings) {

    static Reply ok(CoordinatorState state) {
        return new Reply(null, null, state, null, null, null, null, null);
    }

    static Reply claimed(CoordinatorState state, BootstrapClaim claim) {
        return new Reply(null, null, state, claim, null, null, null, null);
    }

    static Reply ofHistory(List<Topology> history) {
        return new Reply(null, null, null, null, List.copyOf(history), null, null, null);
    }

    static Reply ofAcknowledged(long index) {
        return new Reply(null, null, null, null, null, index, null, null);
    }

    static Reply ofDisks(Map<String, String> disks) {
        return new Reply(null, null, null, null, null, null, Map.copyOf(disks), null);
    }

    static Reply ofSettings(Map<String, String> settings) {
        return new Reply(null, null, null, null, null, null, null, Map.copyOf(settings));
    }

    static Reply refused(ErrorCode error, String message) {
        return new Reply(error, message, null, null, null, null, null, null);
    }

    boolean refused() {
        return error != null;
    }

    /** Throws the refusal as a {@link CairnException}; returns this reply when it is a success. */
    Reply orThrow() {
        if (error != null) throw new CairnException(error, message);
        return this;
    }
}
