package io.cairn.core.move;

import io.cairn.core.rebalance.PlanLimits;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

/**
 * Regression test, found by cairn-sim; runs in the default build. Alone:
 * mvn -o -pl cairn-core verify -Dtest=MoverPinLostReplyTest -Dsurefire.failIfNoSpecifiedTests=false
 *
 * <p>{@code Mover.pin} used to dereference the Pin reply without checking for {@code null}
 * (MovePort's "no answer"): a lost reply threw NullPointerException on the driver thread instead
 * of answering the operator, and the answer callback was never called.
 */
class MoverPinLostReplyTest {
    @Test
    void aLostPinReplyIsAnsweredNotThrown() {
        InMemoryReplicaset a = new InMemoryReplicaset("a").bootstrap(3, 1, 1);
        InMemoryReplicaset b = new InMemoryReplicaset("b");
        FakeMovePort port = new FakeMovePort(a, b);
        port.dropReplyOfCall = 2;  // Digest@a, Digest@b, then Pin@a
        Mover mover = new Mover(port, PlanLimits.withDefaultThreshold(1, 1, 1), SendMove.Limits.defaults(), false);
        mover.setLayout(new Mover.Layout(1, 10, Map.of("a", 1.0, "b", 1.0)));
        List<String> answers = new ArrayList<>();
        assertThatCode(() -> mover.pin(3, true, answers::add)).doesNotThrowAnyException();
        assertThat(port.calls).containsExactly("Digest@a", "Digest@b", "Pin@a");
        assertThat(answers).hasSize(1);
    }
}
