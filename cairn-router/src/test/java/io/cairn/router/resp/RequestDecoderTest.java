package io.cairn.router.resp;

import io.cairn.core.CairnException;
import io.cairn.core.testing.SeededRandom;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link RequestDecoder} under seeded random input: requests with binary arguments (CR and LF
 * inside included), inline lines and oversized arguments, cut into random pieces as a socket
 * may deliver them; then the same streams with one byte changed. Each test prints its seed;
 * {@code -Dcairn.seed=N} replays one ({@link SeededRandom}).
 */
@ExtendWith(SeededRandom.class)
class RequestDecoderTest {
    private static final int MAX_ARG_BYTES = 200;
    private static final RespConfig CONFIG = RespConfig.builder()
            .maxKeyBytes(MAX_ARG_BYTES).maxValueBytes(MAX_ARG_BYTES).maxBulkBytes(4096)
            .maxRequestBytes(8192).maxArgs(20).maxInlineBytes(256).build();
    /** Stands for an argument the decoder must mark oversized. */
    private static final byte[] OVERSIZED = new byte[0];

    private record Stream(byte[] bytes, List<byte[][]> requests, int[] ends) {}

    @Test
    void requestsCutAnywhereDecodeToTheirArguments(Random random) {
        for (int round = 0; round < 200; round++) {
            Stream stream = randomStream(random, 1 + random.nextInt(30));
            List<CommandArgs> decoded = new ArrayList<>();
            Throwable error = feed(stream.bytes(), random, decoded);
            assertThat(error).as("round %d", round).isNull();
            assertDecodedAs(decoded, stream.requests(), stream.requests().size(), round);
        }
    }

    @Test
    void aDamagedStreamDecodesWhatPrecedesTheDamageAndFailsOnlyWithAProtocolError(Random random) {
        int protocolErrors = 0;
        for (int round = 0; round < 500; round++) {
            Stream stream = randomStream(random, 1 + random.nextInt(10));
            byte[] damaged = stream.bytes().clone();
            int at = random.nextInt(damaged.length);
            String damage = "*$:\r\n-x0 9";
            damaged[at] = (byte) damage.charAt(random.nextInt(damage.length()));
            int intact = 0;
            while (intact < stream.ends().length && stream.ends()[intact] <= at) intact++;

            List<CommandArgs> decoded = new ArrayList<>();
            Throwable error = feed(damaged, random, decoded);
            if (error != null) {
                protocolErrors++;
                assertThat(error).as("round %d", round)
                        .isInstanceOf(DecoderException.class).hasCauseInstanceOf(RespProtocolException.class);
            }
            assertThat(decoded.size()).as("round %d", round).isGreaterThanOrEqualTo(intact);
            assertDecodedAs(decoded, stream.requests(), intact, round);
        }
        assertThat(protocolErrors).as("damage is mostly detected").isGreaterThan(20); // ~50: most bytes are bulk content, where damage is data
    }

    @Test
    void nothingAfterAProtocolErrorIsDecoded() {
        EmbeddedChannel channel = new EmbeddedChannel(new RequestDecoder(CONFIG));
        byte[] input = "*1\r\n$4\r\nPING\r\n*1\r\n:1\r\n*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII);
        assertThatThrownBy(() -> channel.writeInbound(Unpooled.wrappedBuffer(input)))
                .hasRootCauseMessage("expected '$', got ':'");
        assertThat(((CommandArgs) channel.readInbound()).name()).isEqualTo("ping");
        channel.writeInbound(Unpooled.wrappedBuffer(RawClient.encode("PING")));
        assertThat((Object) channel.readInbound()).isNull();
    }

    @Test
    void emptyAndNullMultibulksAndBlankLinesAreIgnored() {
        EmbeddedChannel channel = new EmbeddedChannel(new RequestDecoder(CONFIG));
        channel.writeInbound(Unpooled.wrappedBuffer("*0\r\n*-1\r\n\r\n \t\r\n\nGET  k\n".getBytes(StandardCharsets.US_ASCII)));
        CommandArgs args = channel.readInbound();
        assertThat(args.count()).isEqualTo(2);
        assertThat(args.string(1)).isEqualTo("k");
        assertThat((Object) channel.readInbound()).isNull();
    }

    /** Feeds {@code bytes} in random pieces; returns the error that ended decoding, or null. */
    /**
     * Mutated streams ({@link io.cairn.core.testing.Fuzz}): whatever the bytes, the decoder fails only
     * with a protocol error, within bounded memory, and where a socket's reads end changes nothing:
     * the stream fed whole and fed in random pieces gives the same requests and the same verdict.
     */
    @Test
    void aMutatedStreamDecodesTheSameWhereverItsReadsEnd(Random random) {
        List<byte[]> corpus = new ArrayList<>();
        for (int i = 0; i < 20; i++) corpus.add(randomStream(random, 1 + random.nextInt(5)).bytes());
        io.cairn.core.testing.Fuzz.run(random, corpus, input -> {
            List<CommandArgs> whole = new ArrayList<>();
            Throwable wholeError = feedPieces(List.of(input), whole);
            List<CommandArgs> pieces = new ArrayList<>();
            Throwable piecesError = feedPieces(io.cairn.core.testing.Fuzz.pieces(random, input), pieces);
            for (Throwable e : new Throwable[] {wholeError, piecesError}) {
                if (e != null && !(e.getCause() instanceof RespProtocolException)) throw new AssertionError("not a protocol error", e);
            }
            assertThat(piecesError == null).as("the same verdict in pieces").isEqualTo(wholeError == null);
            assertThat(pieces).hasSameSizeAs(whole);
            for (int r = 0; r < whole.size(); r++) {
                assertThat(pieces.get(r).count()).isEqualTo(whole.get(r).count());
                for (int i = 0; i < whole.get(r).count(); i++) {
                    assertThat(pieces.get(r).isOversized(i)).isEqualTo(whole.get(r).isOversized(i));
                    if (!whole.get(r).isOversized(i)) assertThat(pieces.get(r).raw(i)).isEqualTo(whole.get(r).raw(i));
                }
            }
        });
    }

    private static Throwable feedPieces(List<byte[]> pieces, List<CommandArgs> decoded) {
        EmbeddedChannel channel = new EmbeddedChannel(new RequestDecoder(CONFIG));
        Throwable error = null;
        for (byte[] piece : pieces) {
            try {
                channel.writeInbound(Unpooled.wrappedBuffer(piece));
            } catch (RuntimeException e) {
                error = e;
                break;
            }
        }
        for (Object msg; (msg = channel.readInbound()) != null; ) decoded.add((CommandArgs) msg);
        channel.finishAndReleaseAll();
        return error;
    }

    private static Throwable feed(byte[] bytes, Random random, List<CommandArgs> decoded) {
        EmbeddedChannel channel = new EmbeddedChannel(new RequestDecoder(CONFIG));
        Throwable error = null;
        for (int at = 0; at < bytes.length && error == null; ) {
            int piece = Math.min(bytes.length - at, 1 + random.nextInt(random.nextBoolean() ? 8 : 600));
            try {
                channel.writeInbound(Unpooled.copiedBuffer(bytes, at, piece));
            } catch (RuntimeException e) {
                error = e;
            }
            at += piece;
        }
        for (Object msg; (msg = channel.readInbound()) != null; ) decoded.add((CommandArgs) msg);
        channel.finishAndReleaseAll();
        return error;
    }

    private static void assertDecodedAs(List<CommandArgs> decoded, List<byte[][]> expected, int count, int round) {
        for (int r = 0; r < count; r++) {
            CommandArgs args = decoded.get(r);
            byte[][] want = expected.get(r);
            assertThat(args.count()).as("round %d request %d", round, r).isEqualTo(want.length);
            for (int i = 0; i < want.length; i++) {
                if (want[i] == OVERSIZED) {
                    int index = i;
                    assertThatThrownBy(() -> args.value(index)).isInstanceOf(CairnException.class)
                            .hasMessageContaining("value exceeds the configured maximum");
                } else {
                    assertThat(args.raw(i)).as("round %d request %d arg %d", round, r, i)
                            .isEqualTo(want[i]);
                }
            }
        }
    }

    private static Stream randomStream(Random random, int requests) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<byte[][]> expected = new ArrayList<>();
        int[] ends = new int[requests];
        for (int r = 0; r < requests; r++) {
            if (random.nextInt(8) == 0) {
                byte[][] words = new byte[1 + random.nextInt(4)][];
                StringBuilder line = new StringBuilder(random.nextBoolean() ? " " : "");
                for (int i = 0; i < words.length; i++) {
                    String word = randomWord(random);
                    words[i] = word.getBytes(StandardCharsets.US_ASCII);
                    line.append(word).append(random.nextBoolean() ? " " : "\t ");
                }
                bytes.writeBytes(line.append(random.nextBoolean() ? "\r\n" : "\n").toString()
                        .getBytes(StandardCharsets.US_ASCII));
                expected.add(words);
            } else {
                byte[][] args = new byte[1 + random.nextInt(6)][];
                bytes.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                for (int i = 0; i < args.length; i++) {
                    boolean oversized = random.nextInt(20) == 0;
                    byte[] arg = new byte[oversized ? MAX_ARG_BYTES + 1 + random.nextInt(500) : random.nextInt(
                            random.nextBoolean() ? 12 : MAX_ARG_BYTES + 1)];
                    for (int b = 0; b < arg.length; b++) arg[b] = (byte) "ab\r\n*$\0\u00ff".charAt(random.nextInt(8));
                    bytes.writeBytes(("$" + arg.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                    bytes.writeBytes(arg);
                    bytes.writeBytes(new byte[] {'\r', '\n'});
                    args[i] = oversized ? OVERSIZED : arg;
                }
                expected.add(args);
            }
            ends[r] = bytes.size();
        }
        return new Stream(bytes.toByteArray(), expected, ends);
    }

    private static String randomWord(Random random) {
        char[] word = new char[1 + random.nextInt(10)];
        for (int i = 0; i < word.length; i++) word[i] = (char) ('a' + random.nextInt(26));
        return new String(word);
    }
}
