package io.cairn.replication.microraft;

import io.cairn.core.testing.Fuzz;
import io.cairn.core.testing.SeededRandom;
import io.microraft.model.log.LogEntry;
import io.microraft.model.message.RaftMessage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static io.cairn.replication.microraft.ModelCodec.MODEL;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Frames on a replication port come from anything that can open it (issue 26). {@link NettyTransport}
 * closes a connection whose frame does not decode; what must hold in the decoder itself is that no
 * frame, whatever its length fields say, makes it allocate more than the frame's size or throw
 * anything but an exception (an {@link Error} such as OutOfMemoryError would take the process down).
 */
@ExtendWith(SeededRandom.class)
class WireFuzzTest {
    @TempDir
    Path dir;

    @Test
    void noFrameMakesTheDecoderAllocateBeyondItsSizeOrFailWithAnError(Random random) throws Exception {
        WireCodec codec = new WireCodec("g", 1 << 20, new SnapshotFiles(dir, "m0"));
        List<byte[]> corpus = new ArrayList<>();
        for (RaftMessage m : messages()) corpus.add(encode(codec, m));
        int[] decoded = {0};
        int refused = Fuzz.run(random, corpus, input -> {
            ByteBuf frame = Unpooled.wrappedBuffer(input);
            if (codec.decode(frame) != null) decoded[0]++;
        }, RuntimeException.class, IOException.class);
        System.out.printf("frames: %d decoded, %d refused%n", decoded[0], refused);
        assertThat(decoded[0]).isPositive();
        assertThat(refused).isPositive();
    }

    private static byte[] encode(WireCodec codec, RaftMessage m) throws IOException {
        ByteBuf out = Unpooled.buffer();
        codec.encode(m, out);
        byte[] bytes = new byte[out.readableBytes()];
        out.readBytes(bytes);
        return bytes;
    }

    private static List<RaftMessage> messages() {
        Endpoint m1 = new Endpoint("m1", null);
        List<LogEntry> entries = List.of(
                MODEL.createLogEntryBuilder().setIndex(5).setTerm(2).setOperation(new byte[] {1, 2, 3, 4}).build(),
                MODEL.createLogEntryBuilder().setIndex(6).setTerm(2).setOperation(null).build());
        return List.of(
                MODEL.createAppendEntriesRequestBuilder().setGroupId("g").setSender(m1).setTerm(2).setPreviousLogTerm(1)
                        .setPreviousLogIndex(4).setCommitIndex(4).setQuerySequenceNumber(1).setFlowControlSequenceNumber(1)
                        .setLogEntries(entries).build(),
                MODEL.createAppendEntriesSuccessResponseBuilder().setGroupId("g").setSender(m1).setTerm(2).setLastLogIndex(6)
                        .setQuerySequenceNumber(1).setFlowControlSequenceNumber(1).build(),
                MODEL.createAppendEntriesFailureResponseBuilder().setGroupId("g").setSender(m1).setTerm(2).setExpectedNextIndex(3)
                        .setQuerySequenceNumber(1).setFlowControlSequenceNumber(1).build(),
                MODEL.createVoteRequestBuilder().setGroupId("g").setSender(m1).setTerm(3).setLastLogTerm(2).setLastLogIndex(6).setSticky(true).build(),
                MODEL.createPreVoteResponseBuilder().setGroupId("g").setSender(m1).setTerm(3).setGranted(true).build());
    }
}
