package io.cairn.server.cli;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.server.admin.AdminAccess;
import io.cairn.server.admin.AdminClient;
import io.cairn.server.admin.AdminHttps;
import io.cairn.server.config.ClusterConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code cairn bucket doubled | resolve | export}: the operator's side of doubled buckets (docs/doubled-buckets.md). */
final class DoubledCommands {
    private DoubledCommands() {}

    @Command(name = "doubled", mixinStandardHelpOptions = true,
            description = "List doubled buckets: each copy's state, generation, key count and last write time.")
    static final class Doubled implements Callable<Integer> {
        @Mixin ClusterAccess access;

        @Override
        public Integer call() {
            Map<String, Object> doubled = AdminClient.getJson(ClusterAccess.coordinatorLeader(access.load()) + "/doubled");
            if (doubled == null) throw new CairnException(ErrorCode.UNAVAILABLE, "the coordinator leader did not answer");
            if (doubled.isEmpty()) System.out.println("no doubled buckets");
            doubled.forEach((bucket, sides) -> {
                System.out.println("bucket " + bucket + ":");
                if (sides instanceof Map<?, ?> m) {
                    m.forEach((rs, d) -> {
                        if (d instanceof Map<?, ?> r) {
                            System.out.printf("  %-8s %-22s generation %-4s keys %-8s last write %s%n", rs, r.get("state"), r.get("generation"),
                                    r.get("keys"), r.get("lastWrite"));
                        }
                    });
                }
            });
            return 0;
        }
    }

    @Command(name = "resolve", mixinStandardHelpOptions = true,
            description = "Keep one copy of a doubled bucket: the others are quarantined (data kept for export), then the kept copy becomes ACTIVE at a new generation.")
    static final class Resolve implements Callable<Integer> {
        @Mixin ClusterAccess access;
        @Parameters(index = "0", description = "bucket id") int bucket;
        @Option(names = "--keep", required = true, description = "the replicaset whose copy stays") String keep;

        @Override
        public Integer call() {
            AdminClient.Answer r = AdminClient.post(ClusterAccess.coordinatorLeader(access.load()) + "/buckets/" + bucket + "/resolve?keep=" + keep);
            System.out.print(r.body());
            return r.status() == 200 ? 0 : 1;
        }
    }

    @Command(name = "export", mixinStandardHelpOptions = true,
            description = "Write the keys of a contained or quarantined copy: one line per key, base64(key) TAB base64(value) TAB expireAtMs (0: none); a hash adds TAB hash (its value is then its packed fields).")
    static final class Export implements Callable<Integer> {

        @Mixin ClusterAccess access;
        @Parameters(index = "0", description = "bucket id") int bucket;
        @Option(names = "--from", required = true, description = "the replicaset holding the copy") String from;
        @Option(names = "--out", description = "output file (default: standard output)") Path out;

        @Override
        public Integer call() throws Exception {
            ClusterConfig c = access.load();
            String base = ClusterAccess.coordinatorLeader(c) + "/buckets/" + bucket + "/export?from=" + from;
            try (PrintStream sink = out == null ? new PrintStream(System.out, true) : new PrintStream(Files.newOutputStream(out))) {
                long keys = exportAll(base, sink);
                System.err.println("exported " + keys + " keys of bucket " + bucket + " from " + from + (out == null ? "" : " to " + out));
            }
            return 0;
        }

        /** Pages through the export, writing key lines; returns the number of keys. */
        static long exportAll(String base, PrintStream sink) throws IOException, InterruptedException {
            String after = null;
            long keys = 0;
            while (true) {
                String url = base + (after == null ? "" : "&after=" + after);
                HttpResponse<String> r = AdminHttps.client(Duration.ofSeconds(2)).send(AdminAccess.authorize(HttpRequest.newBuilder(URI.create(url))).timeout(Duration.ofSeconds(60)).GET().build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 200) throw new CairnException(ErrorCode.UNAVAILABLE, "export failed: " + r.body().trim());
                String next = null;
                for (String line : r.body().split("\n")) {
                    if (line.startsWith("# next ")) next = line.substring(7);
                    else if (!line.startsWith("#") && !line.isEmpty()) {
                        sink.println(line);
                        keys++;
                    }
                }
                if (next == null) return keys;
                after = next;
            }
        }
    }
}
