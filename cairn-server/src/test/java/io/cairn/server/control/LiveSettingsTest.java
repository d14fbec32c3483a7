package io.cairn.server.control;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.config.ClusterConfig.RebalancerSettings;
import io.cairn.server.config.ConfigLoader;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link LiveSettings}: which names and values {@code cairn config set} takes, and what they change. */
class LiveSettingsTest {
    /** A config file with the defaults (docs/operations.md). */
    private static final ClusterConfig FILE = minimal();

    private static ClusterConfig minimal() {
        try {
            return ConfigLoader.load(Path.of(LiveSettingsTest.class.getResource("/config/minimal.yaml").toURI()));
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void valuesSetOverrideTheConfigFileAndTheRestStays() {
        RebalancerSettings live = LiveSettings.apply(FILE, Map.of("rebalancer.maxBytesPerSecond", "5000000",
                "rebalancer.maxSendingPerReplicaset", "4", "rebalancer.auto", "false", "rebalancer.thresholdPercent", "2.5"));
        assertThat(live.maxBytesPerSecond()).isEqualTo(5_000_000);
        assertThat(live.maxSendingPerReplicaset()).isEqualTo(4);
        assertThat(live.auto()).isFalse();
        assertThat(live.thresholdPercent()).isEqualTo(2.5);
        assertThat(live.maxReceivingPerReplicaset()).isEqualTo(64);
        assertThat(live.chunkKeys()).isEqualTo(1000);
        assertThat(live.stepLatencyTargetMs()).isEqualTo(10);
    }

    @Test
    void anUnknownNameAndABadValueAreEachNamedAndNothingIsStored() {
        Map<String, String> changes = new LinkedHashMap<>();
        changes.put("rebalancer.nope", "1");
        changes.put("rebalancer.auto", "maybe");
        changes.put("rebalancer.maxBytesPerSecond", "10MB");
        assertThatThrownBy(() -> LiveSettings.check(FILE, Map.of(), changes))
                .isInstanceOfSatisfying(CairnException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_CONFIG))
                .hasMessageContaining("unknown run-time setting 'rebalancer.nope' (run-time settings: rebalancer.auto, ")
                .hasMessageContaining("rebalancer.auto must be true or false, was 'maybe'")
                .hasMessageContaining("rebalancer.maxBytesPerSecond must be a whole number, was '10MB'")
                .hasMessageEndingWith("nothing changed");
    }

    @Test
    void aValueOutsideTheConfigFilesBoundsIsRefusedWithTheirMessage() {
        assertThatThrownBy(() -> LiveSettings.check(FILE, Map.of(), Map.of("rebalancer.maxSendingPerReplicaset", "0")))
                .hasMessageContaining("move limits must be at least 1");
        assertThatThrownBy(() -> LiveSettings.check(FILE, Map.of(), Map.of("rebalancer.stepLatencyTargetMs", "-5")))
                .hasMessageContaining("rebalancer.stepLatencyTargetMs must be 0..60000");
    }

    @Test
    void defaultDropsAValueSoTheConfigFilesAppliesAgain() {
        Map<String, String> stored = LiveSettings.check(FILE, Map.of("rebalancer.maxBytesPerSecond", "5000000"),
                Map.of("rebalancer.maxBytesPerSecond", "default"));
        assertThat(stored).containsExactly(Map.entry("rebalancer.maxBytesPerSecond", ""));
        Map<String, Object> shown = LiveSettings.show(FILE, Map.of());
        @SuppressWarnings("unchecked") Map<String, Object> one = (Map<String, Object>) shown.get("rebalancer.maxBytesPerSecond");
        assertThat(one).containsEntry("value", "0").containsEntry("source", "config file");
    }

    @Test
    void theRoutersDiscoveryIntervalIsARunTimeSettingWithinItsBounds() {
        assertThat(LiveSettings.discoveryIntervalMs(FILE, Map.of())).as("the file's").isEqualTo(1_000);
        Map<String, String> stored = LiveSettings.check(FILE, Map.of(), Map.of("router.discoveryIntervalMs", "250"));
        assertThat(LiveSettings.discoveryIntervalMs(FILE, stored)).isEqualTo(250);
        assertThat(LiveSettings.discoveryIntervalMs(FILE, Map.of("router.discoveryIntervalMs", ""))).as("dropped: the file's again").isEqualTo(1_000);
        assertThatThrownBy(() -> LiveSettings.check(FILE, Map.of(), Map.of("router.discoveryIntervalMs", "5")))
                .hasMessageContaining("router.discoveryIntervalMs must be 10..3600000 ms, was 5");
    }

    @Test
    void aNameWithoutAValueIsRefused() {
        Map<String, String> changes = new LinkedHashMap<>();
        changes.put("rebalancer.auto", null);
        assertThatThrownBy(() -> LiveSettings.check(FILE, Map.of(), changes)).hasMessageContaining("rebalancer.auto needs a value");
    }

    @Test
    void archiveRatesSetOverrideTheConfigFilesAndANegativeOneIsRefused() {
        assertThat(LiveSettings.archiveRates(FILE, Map.of("archive.bytesPerSecond", "1000")))
                .isEqualTo(new io.cairn.archive.StoreThrottle.Rates(FILE.archive().callsPerSecond(), 1000));
        assertThatThrownBy(() -> LiveSettings.check(FILE, Map.of(), Map.of("archive.callsPerSecond", "-5")))
                .isInstanceOfSatisfying(CairnException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_CONFIG))
                .hasMessageContaining("object store rates must be >= 0").hasMessageEndingWith("nothing changed");
    }
}
