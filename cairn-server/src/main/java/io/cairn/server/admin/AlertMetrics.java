package io.cairn.server.admin;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The gauge {@code cairn_alerts{alert="CODE"}}: how many of a process's {@code /alerts} entries
 * carry each code now (0 when clear). Prometheus alerting rules (deploy/prometheus/cairn-rules.yml)
 * need one series per code, since an alert's text names buckets and counts that change. Every code a
 * process can raise is registered at start, so a rule sees 0 rather than no series at all.
 */
public final class AlertMetrics {
    /** The coordinator's "replicaset X did not answer" carries no code of its own in /alerts (kept for its readers). */
    public static final String REPLICASET_UNREACHABLE = "REPLICASET_UNREACHABLE";
    /** An alert whose text starts with no code: counted, so that no alert is invisible to Prometheus. */
    public static final String OTHER = "OTHER";

    private AlertMetrics() {}

    /** Registers one {@code cairn_alerts} series per code (and {@link #OTHER}) over {@code alerts}. */
    public static void register(MeterRegistry registry, Supplier<List<String>> alerts, String... codes) {
        List<String> all = new ArrayList<>(List.of(codes));
        all.add(OTHER);
        for (String code : all) {
            Gauge.builder("cairn_alerts", alerts, a -> a.get().stream().filter(text -> codeOf(text, codes).equals(code)).count())
                    .tag("alert", code)
                    .description("alerts this process raises now with this code (its /alerts list); 0 when clear")
                    .register(registry);
        }
    }

    /** The code an alert text starts with ("STALLED_MOVE: bucket 7 ..."), or {@link #OTHER} when it is none of {@code codes}. */
    static String codeOf(String alert, String... codes) {
        int colon = alert.indexOf(':');
        String head = alert.startsWith("replicaset ") && alert.endsWith(" did not answer") ? REPLICASET_UNREACHABLE
                : colon > 0 ? alert.substring(0, colon) : alert;
        for (String code : codes) if (code.equals(head)) return code;
        return OTHER;
    }
}
