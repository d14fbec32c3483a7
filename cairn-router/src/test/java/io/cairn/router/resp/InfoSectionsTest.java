package io.cairn.router.resp;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * INFO (issue 24) beside a real redis-server: the keyspace line counts keys and keys with a TTL as
 * Redis does, an empty keyspace has no db0 line, and the fields clients commonly parse are there.
 */
class InfoSectionsTest {
    private static final List<String> PARSED_FIELDS = List.of("redis_version", "redis_mode", "os", "arch_bits", "process_id", "run_id",
            "tcp_port", "uptime_in_seconds", "uptime_in_days", "connected_clients", "maxclients", "used_memory", "used_memory_human",
            "used_memory_rss", "used_memory_peak", "maxmemory", "maxmemory_policy", "mem_fragmentation_ratio",
            "total_connections_received", "total_commands_processed", "rejected_connections", "evicted_keys",
            "role", "connected_slaves", "master_replid", "master_repl_offset");

    private TestServer cairn;

    @AfterEach
    void stop() {
        if (cairn != null) cairn.close();
    }

    @Test
    void keyspaceCountsKeysAndExpiresAsRedisServerDoes() throws Exception {
        cairn = new TestServer(new InMemoryKvBackend());
        try (RedisServerComparison redis = new RedisServerComparison();
             RawClient r = new RawClient(redis.port());
             RawClient c = new RawClient(cairn.port())) {
            for (RawClient client : List.of(r, c)) {
                assertThat(client.call("info", "keyspace")).as("no db0 line when empty").isEqualTo("# Keyspace\r\n");
                client.call("set", "plain", "v");
                client.call("set", "ttl", "v", "ex", "100");
                client.call("hset", "h", "f", "v");
                client.call("expire", "h", "50");
                client.call("rpush", "l", "a");
            }
            Map<String, String> expected = db0(r.call("info", "keyspace"));
            Map<String, String> actual = db0(c.call("info", "keyspace"));
            assertThat(actual.get("keys")).isEqualTo(expected.get("keys")).isEqualTo("4");
            assertThat(actual.get("expires")).isEqualTo(expected.get("expires")).isEqualTo("2");
            // Redis's avg_ttl is an estimate its expiry cycle refreshes; Cairn's is the average of the two TTLs.
            assertThat(Long.parseLong(actual.get("avg_ttl"))).isBetween(60_000L, 75_000L);
            String all = (String) c.call("info");
            String redisAll = (String) r.call("info");
            for (String field : PARSED_FIELDS) {
                assertThat(redisAll).as("redis-server has %s", field).contains("\r\n" + field + ":");
                assertThat(all).as("Cairn has %s", field).contains("\r\n" + field + ":");
            }
            assertThat((String) c.call("info", "replication")).startsWith("# Replication\r\nrole:master\r\nconnected_slaves:0\r\n");
        }
    }

    private static Map<String, String> db0(Object info) {
        String text = (String) info;
        Map<String, String> fields = new LinkedHashMap<>();
        for (String line : text.split("\r\n")) {
            if (!line.startsWith("db0:")) continue;
            for (String pair : line.substring(4).split(",")) fields.put(pair.split("=")[0], pair.split("=")[1]);
        }
        return fields;
    }
}
