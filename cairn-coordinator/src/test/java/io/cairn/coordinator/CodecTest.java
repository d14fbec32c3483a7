package io.cairn.coordinator;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.topology.Topology;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CodecTest {
    private static final Topology TOPOLOGY = Topologies.initial(Topologies.ONE_COORDINATOR);

    static Stream<Command> commands() {
        return Stream.of(new Command.Init(TOPOLOGY),
                new Command.Propose(4, TOPOLOGY, true, "why", "who", 123),
                new Command.ClaimBootstrap("rs1", 42),
                new Command.Get(), new Command.History(), new Command.Watch(7, 2000));
    }

    @ParameterizedTest
    @MethodSource("commands")
    void everyCommandSurvivesTheWire(Command command) {
        assertThat(Codec.command(Codec.toMessage(command).getContent())).isEqualTo(command);
    }

    @Test
    void commandsAreNamedByAnOpField() {
        String json = Codec.toMessage(new Command.Watch(7, 2000)).getContent().toStringUtf8();

        assertThat(json).isEqualTo("{\"op\":\"WATCH\",\"afterEpoch\":7,\"maxWaitMs\":2000}");
    }

    @Test
    void repliesSurviveTheWire() {
        CoordinatorState state = new CoordinatorState(TOPOLOGY.withEpoch(3), Set.of("rs1"),
                List.of(new ForcedChange(3, "alice", "dr", 9, List.of("bucketCount is fixed"))));
        for (Reply reply : List.of(Reply.ok(state), Reply.claimed(state, BootstrapClaim.grant(1, 10)), Reply.ofHistory(List.of(TOPOLOGY)),
                Reply.refused(ErrorCode.GUARDRAIL, "no"))) {
            assertThat(Codec.reply(Codec.toMessage(reply).getContent())).isEqualTo(reply);
        }
    }

    @Test
    void malformedBytesAreAProtocolError() {
        ByteString garbage = ByteString.copyFrom("{\"op\":\"NOPE\"}", StandardCharsets.UTF_8);

        assertThatThrownBy(() -> Codec.command(garbage))
                .isInstanceOfSatisfying(CairnException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PROTOCOL));
    }
}
