package io.cairn.router.resp;

import java.lang.management.ManagementFactory;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The INFO fields that describe this router process under the names clients parse from Redis
 * (server, memory, replication). Memory is the JVM heap in use (Redis's used_memory is its
 * allocator's); replication describes the router as a master with no replicas of its own, since
 * Cairn replicates inside each replicaset (the backend adds one line per replicaset).
 */
final class RouterInfo {
    /** Redis's run_id: 40 random hex characters, new for every process. */
    private static final String RUN_ID = randomHex(20);
    private static final long STARTED_MS = System.currentTimeMillis();
    private static final AtomicLong PEAK_HEAP_BYTES = new AtomicLong();

    private RouterInfo() {}

    static Map<String, String> process() {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("redis_git_sha1", "00000000");
        s.put("redis_git_dirty", "0");
        s.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"));
        s.put("arch_bits", System.getProperty("os.arch").contains("64") ? "64" : "32");
        s.put("process_id", Long.toString(ProcessHandle.current().pid()));
        s.put("run_id", RUN_ID);
        return s;
    }

    static Map<String, String> uptime() {
        long seconds = (System.currentTimeMillis() - STARTED_MS) / 1000;
        return Map.of("uptime_in_seconds", Long.toString(seconds), "uptime_in_days", Long.toString(seconds / 86_400));
    }

    static Map<String, String> memory(long clientBufferBytes) {
        Runtime rt = Runtime.getRuntime();
        long used = rt.totalMemory() - rt.freeMemory();
        long peak = PEAK_HEAP_BYTES.accumulateAndGet(used, Math::max);
        long rss = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted()
                + ManagementFactory.getMemoryMXBean().getNonHeapMemoryUsage().getCommitted();
        Map<String, String> m = new LinkedHashMap<>();
        m.put("used_memory", Long.toString(used));
        m.put("used_memory_human", human(used));
        m.put("used_memory_rss", Long.toString(rss));
        m.put("used_memory_rss_human", human(rss));
        m.put("used_memory_peak", Long.toString(peak));
        m.put("used_memory_peak_human", human(peak));
        m.put("maxmemory", "0");
        m.put("maxmemory_human", "0B");
        m.put("maxmemory_policy", "noeviction");
        m.put("mem_fragmentation_ratio", String.format(Locale.ROOT, "%.2f", used == 0 ? 1.0 : (double) rss / used));
        m.put("mem_clients_normal", Long.toString(clientBufferBytes));
        return m;
    }

    static Map<String, String> replication() {
        Map<String, String> r = new LinkedHashMap<>();
        r.put("role", "master");
        r.put("connected_slaves", "0");
        r.put("master_failover_state", "no-failover");
        r.put("master_replid", RUN_ID);
        r.put("master_replid2", "0".repeat(40));
        r.put("master_repl_offset", "0");
        r.put("second_repl_offset", "-1");
        r.put("repl_backlog_active", "0");
        return r;
    }

    /** Redis's bytesToHuman: "123B", "1.50K", "2.00M", "3.25G". */
    static String human(long bytes) {
        if (bytes < 1024) return bytes + "B";
        String[] units = {"K", "M", "G", "T", "P"};
        double value = bytes / 1024.0;
        int unit = 0;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, "%.2f%s", value, units[unit]);
    }

    private static String randomHex(int bytes) {
        byte[] b = new byte[bytes];
        ThreadLocalRandom.current().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }
}
