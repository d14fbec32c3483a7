package io.cairn.server.control;

import io.cairn.archive.StoreThrottle;
import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.config.ClusterConfig.RebalancerSettings;
import io.cairn.server.config.Setting;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The settings that change at run time, with no restart ({@code cairn config show|set}): their
 * names, what they mean, and how a value over the config file's settings is checked and applied.
 *
 * <p>The values set are kept by the coordinator group (Raft, {@code SET_SETTINGS}), so a new
 * coordinator leader starts its rebalancer with them. A value is checked here, against the same
 * bounds the config file's {@code rebalancer:} section is checked against (the settings record's
 * constructor), before it is written; what is stored is applied by every coordinator node about once
 * a second ({@link LiveSettingsFollower}), and {@code router.discoveryIntervalMs} by every router as often
 * (its {@code AclFollower} reads the settings there). A setting without a value set takes the config file's.
 */
public final class LiveSettings {
    /** A run-time setting: a config file {@link Setting}, and its value in the file's settings. */
    enum Live {
        AUTO(Setting.REBALANCER_AUTO, c -> c.rebalancer().auto()),
        THRESHOLD_PERCENT(Setting.REBALANCER_THRESHOLD_PERCENT, c -> c.rebalancer().thresholdPercent()),
        MAX_SENDING(Setting.REBALANCER_MAX_SENDING, c -> c.rebalancer().maxSendingPerReplicaset()),
        MAX_RECEIVING(Setting.REBALANCER_MAX_RECEIVING, c -> c.rebalancer().maxReceivingPerReplicaset()),
        MAX_MOVES_PER_ROUND(Setting.REBALANCER_MAX_MOVES_PER_ROUND, c -> c.rebalancer().maxMovesPerRound()),
        MAX_BYTES_PER_SECOND(Setting.REBALANCER_MAX_BYTES_PER_SECOND, c -> c.rebalancer().maxBytesPerSecond()),
        STEP_LATENCY_TARGET_MS(Setting.REBALANCER_STEP_LATENCY_TARGET_MS, c -> c.rebalancer().stepLatencyTargetMs()),
        DISCOVERY_INTERVAL_MS(Setting.ROUTER_DISCOVERY_INTERVAL_MS, c -> c.router().discoveryIntervalMs(), "routers follow within about a second"),
        ARCHIVE_CALLS_PER_SECOND(Setting.ARCHIVE_CALLS_PER_SECOND, c -> c.archive().callsPerSecond(),
                "storage and coordinator nodes follow within about a second"),
        ARCHIVE_BYTES_PER_SECOND(Setting.ARCHIVE_BYTES_PER_SECOND, c -> c.archive().bytesPerSecond(),
                "storage and coordinator nodes follow within about a second");

        final Setting setting;
        final String key;
        final Class<?> type;
        final String doc;
        final Function<ClusterConfig, Object> fromFile;

        Live(Setting setting, Function<ClusterConfig, Object> fromFile) {
            this(setting, fromFile, "");
        }

        /** Name, type, unit, bounds and meaning are the config file's ({@link Setting}); {@code howApplied} adds who follows a change. */
        Live(Setting setting, Function<ClusterConfig, Object> fromFile, String howApplied) {
            this.setting = setting;
            this.key = setting.key();
            this.type = setting.type();
            String unitAndBounds = String.join(", ", Stream.of(setting.unit(), setting.bounds()).filter(t -> !t.isEmpty()).toList());
            this.doc = setting.meaning() + (unitAndBounds.isEmpty() ? "" : " (" + unitAndBounds + ")") + (howApplied.isEmpty() ? "" : "; " + howApplied);
            this.fromFile = fromFile;
        }
    }

    private LiveSettings() {}

    /**
     * The config file's settings with {@code values} over them. Names no setting has are ignored
     * (a newer node may know more).
     *
     * @throws IllegalArgumentException for a value that is not of the setting's type or breaks its bounds
     */
    static RebalancerSettings apply(ClusterConfig file, Map<String, String> values) {
        Map<Live, Object> v = new EnumMap<>(Live.class);
        for (Live s : Live.values()) v.put(s, values.containsKey(s.key) ? parse(s, values.get(s.key)) : s.fromFile.apply(file));
        RebalancerSettings r = file.rebalancer();
        return new RebalancerSettings((Boolean) v.get(Live.AUTO), (Double) v.get(Live.THRESHOLD_PERCENT),
                (Integer) v.get(Live.MAX_SENDING), (Integer) v.get(Live.MAX_RECEIVING), (Integer) v.get(Live.MAX_MOVES_PER_ROUND),
                r.chunkKeys(), r.chunkBytes(), r.roundIntervalMs(), r.copyAhead(),
                ((Number) v.get(Live.MAX_BYTES_PER_SECOND)).longValue(), ((Number) v.get(Live.STEP_LATENCY_TARGET_MS)).longValue(),
                r.entriesInFlight(), r.maxCommandsPerEntry(), r.maxEntryBytes());
    }

    /**
     * The routers' discovery interval in force: the value set at run time, else the config file's.
     *
     * @throws IllegalArgumentException for a value that is no whole number or outside 10 ms .. 1 hour
     */
    public static long discoveryIntervalMs(ClusterConfig file, Map<String, String> values) {
        return Setting.ROUTER_DISCOVERY_INTERVAL_MS.check(longValue(Live.DISCOVERY_INTERVAL_MS, file, values));
    }

    /**
     * The archive tier's throttle in force: the rates set at run time, else the config file's.
     *
     * @throws IllegalArgumentException for a value that is no whole number or is negative
     */
    public static StoreThrottle.Rates archiveRates(ClusterConfig file, Map<String, String> values) {
        try {
            return new StoreThrottle.Rates(longValue(Live.ARCHIVE_CALLS_PER_SECOND, file, values),
                    longValue(Live.ARCHIVE_BYTES_PER_SECOND, file, values));
        } catch (CairnException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
    }

    private static long longValue(Live s, ClusterConfig file, Map<String, String> values) {
        return values.containsKey(s.key) && !values.get(s.key).isEmpty() ? (Long) parse(s, values.get(s.key)) : ((Number) s.fromFile.apply(file)).longValue();
    }

    /**
     * Checks {@code changes} (name -> value; "default" drops a value, so the config file's applies
     * again) over the values set now, and answers them as the coordinator stores them (dropped: empty).
     *
     * @throws CairnException INVALID_CONFIG naming every unknown setting and bad value, nothing changed
     */
    static Map<String, String> check(ClusterConfig file, Map<String, String> current, Map<String, String> changes) {
        List<String> problems = new ArrayList<>();
        Map<String, String> stored = new TreeMap<>();
        Map<String, String> after = new TreeMap<>(current);
        for (Map.Entry<String, String> c : changes.entrySet()) {
            Live s = byKey(c.getKey());
            if (s == null) {
                problems.add("unknown run-time setting '" + c.getKey() + "' (run-time settings: " + keys() + ")");
                continue;
            }
            if (c.getValue() == null) {
                problems.add(s.key + " needs a value: " + s.key + "=VALUE (" + s.key + "=default: the config file's value)");
                continue;
            }
            String value = c.getValue().trim();
            if (value.equals("default")) value = "";
            try {
                if (!value.isEmpty()) parse(s, value);
                stored.put(s.key, value);
                if (value.isEmpty()) after.remove(s.key);
                else after.put(s.key, value);
            } catch (IllegalArgumentException e) {
                problems.add(e.getMessage());
            }
        }
        if (problems.isEmpty()) {
            try {
                apply(file, after); // the bounds of the settings together (as the config file's are checked)
                discoveryIntervalMs(file, after);
                archiveRates(file, after);
            } catch (IllegalArgumentException e) {
                problems.add(e.getMessage());
            }
        }
        if (!problems.isEmpty()) throw new CairnException(ErrorCode.INVALID_CONFIG, String.join("; ", problems) + "; nothing changed");
        if (stored.isEmpty()) throw new CairnException(ErrorCode.INVALID_CONFIG, "no setting given: use NAME=VALUE (run-time settings: " + keys() + ")");
        return stored;
    }

    /** Every run-time setting: its value in force, where it comes from, and what it means. */
    static Map<String, Object> show(ClusterConfig file, Map<String, String> values) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Live s : Live.values()) {
            Map<String, Object> one = new LinkedHashMap<>();
            boolean set = values.containsKey(s.key);
            one.put("value", set ? values.get(s.key) : String.valueOf(s.fromFile.apply(file)));
            one.put("source", set ? "set at run time" : "config file");
            one.put("configFile", String.valueOf(s.fromFile.apply(file)));
            one.put("meaning", s.doc);
            out.put(s.key, one);
        }
        return out;
    }

    public static String keys() {
        return String.join(", ", Arrays.stream(Live.values()).map(s -> s.key).toList());
    }

    private static Live byKey(String key) {
        for (Live s : Live.values()) if (s.key.equals(key)) return s;
        return null;
    }

    /** A value of the setting's type (the type of its config file value). */
    private static Object parse(Live s, String value) {
        try {
            if (s.type == Boolean.class) {
                if (!value.equals("true") && !value.equals("false")) throw new NumberFormatException();
                return Boolean.parseBoolean(value);
            }
            if (s.type == Integer.class) return Integer.parseInt(value);
            if (s.type == Long.class) return Long.parseLong(value);
            double d = Double.parseDouble(value);
            if (!Double.isFinite(d)) throw new NumberFormatException();
            return d;
        } catch (NumberFormatException e) {
            String type = s.type == Boolean.class ? "true or false" : s.type == Double.class ? "a number" : "a whole number";
            throw new IllegalArgumentException(s.key + " must be " + type + ", was '" + value + "'");
        }
    }
}
