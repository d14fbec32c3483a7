package io.cairn.server.process;

import org.apache.ratis.metrics.LongCounter;
import org.apache.ratis.metrics.MetricRegistries;
import org.apache.ratis.metrics.MetricRegistryInfo;
import org.apache.ratis.metrics.RatisMetricRegistry;
import org.apache.ratis.metrics.Timekeeper;
import org.apache.ratis.util.TimeDuration;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Ratis's metrics backend for Cairn's processes (loaded by Ratis through
 * {@code META-INF/services}): timers and gauges do nothing, counters only count.
 *
 * <p>Why: the default backend (ratis-metrics-default, Dropwizard) updates several
 * exponentially decaying reservoirs, each a contended skip list, for every log entry on every
 * replica; that was ~4 % of all CPU samples under a write load, and nothing reads them: Cairn
 * exports its own metrics. The module tests keep the default backend.
 */
public final class RatisMetricsOff extends MetricRegistries {
    private static final Timekeeper.Context STOPPED = () -> 0L;
    private static final Timekeeper TIMER = () -> STOPPED;

    private final Map<MetricRegistryInfo, RatisMetricRegistry> registries = new ConcurrentHashMap<>();

    @Override
    public void clear() {
        registries.clear();
    }

    @Override
    public RatisMetricRegistry create(MetricRegistryInfo info) {
        return registries.computeIfAbsent(info, Registry::new);
    }

    @Override
    public boolean remove(MetricRegistryInfo info) {
        return registries.remove(info) != null;
    }

    @Override
    public Optional<RatisMetricRegistry> get(MetricRegistryInfo info) {
        return Optional.ofNullable(registries.get(info));
    }

    @Override
    public Set<MetricRegistryInfo> getMetricRegistryInfos() {
        return Set.copyOf(registries.keySet());
    }

    @Override
    public Collection<RatisMetricRegistry> getMetricRegistries() {
        return List.copyOf(registries.values());
    }

    @Override
    public void addReporterRegistration(Consumer<RatisMetricRegistry> onAdd, Consumer<RatisMetricRegistry> onRemove) {
    }

    @Override
    public void enableJmxReporter() {
    }

    @Override
    public void enableConsoleReporter(TimeDuration period) {
    }

    private static final class Registry implements RatisMetricRegistry {
        private final MetricRegistryInfo info;
        private final Map<String, LongCounter> counters = new ConcurrentHashMap<>();

        Registry(MetricRegistryInfo info) {
            this.info = info;
        }

        @Override
        public Timekeeper timer(String name) {
            return TIMER;
        }

        @Override
        public LongCounter counter(String name) {
            return counters.computeIfAbsent(name, n -> new Counter());
        }

        @Override
        public boolean remove(String name) {
            counters.remove(name);
            return true;
        }

        @Override
        public <T> void gauge(String name, Supplier<Supplier<T>> gaugeSupplier) {
        }

        @Override
        public MetricRegistryInfo getMetricRegistryInfo() {
            return info;
        }
    }

    private static final class Counter implements LongCounter {
        private final LongAdder count = new LongAdder();

        @Override
        public void inc(long n) {
            count.add(n);
        }

        @Override
        public void dec(long n) {
            count.add(-n);
        }

        @Override
        public long getCount() {
            return count.sum();
        }
    }
}
