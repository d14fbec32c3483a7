package io.cairn.coordinator;

import java.util.List;

/**
 * An audit record of a topology change published with {@code force}: which epoch it produced,
 * who asked and why, when (the caller's clock, milliseconds since the epoch), and the guardrail
 * problems that were overridden.
 */
public record ForcedChange(long epoch, String actor, String reason, long requestedAtMs,
                           List<String> overriddenProblems) {
    public ForcedChange {
        overriddenProblems = overriddenProblems == null ? List.of() : List.copyOf(overriddenProblems);
    }
}
