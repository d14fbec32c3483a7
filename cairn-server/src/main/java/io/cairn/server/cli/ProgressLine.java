package io.cairn.server.cli;

import java.io.PrintStream;
import java.util.Locale;

/**
 * The progress of a long command ({@code --wait}): in a terminal one line redrawn in place with a
 * bar, the rate and the time left; elsewhere (a pipe, a log file, a test) the plain line each time
 * it changes, so scripts and logs read what they always did.
 */
public final class ProgressLine {
    private static final int BAR_WIDTH = 30;

    private final PrintStream out;
    private final boolean terminal;
    private String last = "";
    private int drawnWidth;

    ProgressLine(PrintStream out, boolean terminal) {
        this.out = out;
        this.terminal = terminal;
    }

    /** Standard output; a terminal when the JVM has a console (stdin and stdout both a terminal). */
    public static ProgressLine stdout() {
        return new ProgressLine(System.out, System.console() != null);
    }

    /**
     * One step: {@code plain} is the line a non-terminal gets (printed when it differs from the last);
     * a terminal gets the bar of {@code done} of {@code total} with {@code unit}, {@code perSecond} and
     * {@code etaSeconds} (negative: unknown yet), then {@code plain}'s first words as the label.
     */
    void update(String plain, long done, long total, String unit, double perSecond, long etaSeconds, String label) {
        if (!terminal) {
            if (!plain.equals(last)) out.println(plain);
            last = plain;
            out.flush();
            return;
        }
        String line = bar(done, total, unit, perSecond, etaSeconds, label);
        out.print('\r' + line + " ".repeat(Math.max(0, drawnWidth - line.length())));
        drawnWidth = line.length();
        out.flush();
    }

    /** Whether the line is redrawn in place (a terminal) rather than printed line by line. */
    public boolean terminal() {
        return terminal;
    }

    /**
     * {@code done} of {@code total} {@code unit} since {@code startNanos}: the rate and the time left
     * computed from them; the plain line is "label: done/total unit, rate/s, ETA".
     */
    public void progress(String label, long done, long total, String unit, long startNanos) {
        double seconds = Math.max(1e-3, (System.nanoTime() - startNanos) / 1e9);
        double perSecond = done / seconds;
        long eta = done == 0 ? -1 : (long) Math.ceil(Math.max(0, total - done) / perSecond);
        String plain = String.format(Locale.ROOT, "%s: %,d/%,d %s, %,.0f/s, ETA %s", label, done, total, unit, perSecond, eta(eta));
        update(plain, done, total, unit, perSecond, eta, label);
    }

    /** Ends a redrawn line (a terminal), so what is printed next starts on a line of its own. */
    public void finish() {
        if (terminal && drawnWidth > 0) out.println();
        drawnWidth = 0;
        out.flush();
    }

    /** "[#########.....................]  30% 900/3000 buckets, 45.2/s, ETA 47 s  label" */
    static String bar(long done, long total, String unit, double perSecond, long etaSeconds, String label) {
        long shownTotal = Math.max(total, done);
        double fraction = shownTotal == 0 ? 1 : (double) done / shownTotal;
        int filled = (int) Math.round(fraction * BAR_WIDTH);
        return String.format("[%s%s] %3d%% %d/%d %s, %.1f/s, ETA %s  %s", "#".repeat(filled), ".".repeat(BAR_WIDTH - filled),
                Math.round(fraction * 100), done, shownTotal, unit, perSecond, eta(etaSeconds), label).stripTrailing();
    }

    /** "47 s", "3 min 20 s", "1 h 05 min", or "?" while unknown. */
    static String eta(long seconds) {
        if (seconds < 0) return "?";
        if (seconds < 60) return seconds + " s";
        if (seconds < 3600) return seconds / 60 + " min " + seconds % 60 + " s";
        return seconds / 3600 + " h " + String.format("%02d", seconds % 3600 / 60) + " min";
    }
}
