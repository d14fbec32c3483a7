package io.cairn.server.cli;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link ProgressLine}: a bar redrawn in place in a terminal, plain changed lines elsewhere. */
class ProgressLineTest {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    @Test
    void notATerminalGetsEachChangedLineOnceAndNoBar() {
        ProgressLine progress = new ProgressLine(out, false);
        progress.update("epoch 2: 10 buckets to move", 0, 10, "buckets", 0, -1, "epoch 2");
        progress.update("epoch 2: 10 buckets to move", 0, 10, "buckets", 0, -1, "epoch 2");
        progress.update("epoch 2: 4 buckets to move", 6, 10, "buckets", 3, 2, "epoch 2");
        progress.finish();
        assertThat(text()).isEqualTo("epoch 2: 10 buckets to move\nepoch 2: 4 buckets to move\n");
    }

    @Test
    void aTerminalGetsOneLineRedrawnWithTheBarRateAndEta() {
        ProgressLine progress = new ProgressLine(out, true);
        progress.update("plain", 0, 3000, "buckets", 0, -1, "epoch 2, 0 in flight");
        progress.update("plain", 900, 3000, "buckets", 45.25, 47, "epoch 2, 32 in flight");
        progress.finish();
        String[] frames = text().split("\r");
        assertThat(frames[1]).startsWith("[..............................]   0% 0/3000 buckets, 0.0/s, ETA ?  epoch 2, 0 in flight");
        assertThat(frames[2]).isEqualTo("[#########.....................]  30% 900/3000 buckets, 45.3/s, ETA 47 s  epoch 2, 32 in flight\n");
        assertThat(text()).doesNotContain("plain");
    }

    @Test
    void progressComputesTheRateAndTimeLeftFromTheStart() {
        ProgressLine progress = new ProgressLine(out, false);
        long twoSecondsAgo = System.nanoTime() - 2_000_000_000L;
        progress.progress("loading", 200_000, 1_000_000, "keys", twoSecondsAgo);
        // about 100,000 keys/s (a little less: time passes), so about 8 s left
        assertThat(text()).matches("loading: 200,000/1,000,000 keys, (9\\d,\\d{3}|100,000)/s, ETA [89] s\n");
    }

    @Test
    void aShorterFrameBlanksWhatTheLongerOneLeft() {
        ProgressLine progress = new ProgressLine(out, true);
        progress.update("", 1, 10, "buckets", 1, 9, "a long label that is drawn first");
        int firstWidth = text().length() - 1;
        progress.update("", 2, 10, "buckets", 1, 8, "short");
        String second = text().substring(text().lastIndexOf('\r') + 1);
        assertThat(second.length()).isGreaterThanOrEqualTo(firstWidth);
        assertThat(second.strip()).endsWith("short");
    }

    @Test
    void etaReadsInSecondsMinutesOrHours() {
        assertThat(ProgressLine.eta(-1)).isEqualTo("?");
        assertThat(ProgressLine.eta(47)).isEqualTo("47 s");
        assertThat(ProgressLine.eta(200)).isEqualTo("3 min 20 s");
        assertThat(ProgressLine.eta(3_900)).isEqualTo("1 h 05 min");
    }

    private String text() {
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
