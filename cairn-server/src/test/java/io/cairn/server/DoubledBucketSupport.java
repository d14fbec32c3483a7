package io.cairn.server;

import io.cairn.core.ErrorCode;
import io.cairn.client.DataPlaneClient;
import io.cairn.core.kv.KvOp;
import io.cairn.core.wire.DataPlane;
import io.cairn.core.kv.OpCodec;
import io.cairn.core.kv.OpResult;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.wire.StorageRequest;
import io.cairn.server.config.ClusterConfig;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Helpers of {@link DoubledBucketTest}: folder copies, /alerts, and requests sent straight to one replicaset. */
final class DoubledBucketSupport {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private DoubledBucketSupport() {}

    static String alerts(int adminPort) {
        return get(adminPort, "/alerts");
    }

    static String metrics(int adminPort) {
        return get(adminPort, "/metrics");
    }

    private static String get(int adminPort, String path) {
        try {
            var req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + path)).timeout(java.time.Duration.ofSeconds(5)).build();
            return HTTP.send(req, HttpResponse.BodyHandlers.ofString()).body();
        } catch (Exception e) {
            return "";
        }
    }

    static void copyTree(Path from, Path to) throws Exception {
        try (Stream<Path> walk = Files.walk(from)) {
            for (Path p : walk.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) Files.createDirectories(target);
                else if (!p.getFileName().toString().equals("LOCK") && !p.getFileName().toString().endsWith(".lock")) Files.copy(p, target);
            }
        }
    }

    static void deleteTree(Path root) throws Exception {
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }

    /** A SET sent straight to {@code replicaset}'s log (as a router that only knows that replicaset would); the error, or null when applied. */
    static ErrorCode writeDirect(ClusterConfig config, String replicaset, int bucket, String key, String value) throws Exception {
        byte[] request = StorageRequest.write(List.of(KvOp.set(bucket, bytes(key), bytes(value))));
        OpResult r = OpCodec.decodeResults(call(config, replicaset, request, false)).get(0);
        return r.isError() ? r.error() : null;
    }

    static String readDirect(ClusterConfig config, String replicaset, int bucket, String key) throws Exception {
        OpResult r = OpCodec.decodeResults(call(config, replicaset, StorageRequest.read(List.of(KvOp.get(bucket, bytes(key)))), true)).get(0);
        if (r.isError()) return r.error().name();
        return r.bytes() == null ? null : new String(r.bytes(), StandardCharsets.UTF_8);
    }

    private static java.nio.ByteBuffer call(ClusterConfig config, String replicaset, byte[] request, boolean readOnly) throws Exception {
        ReplicasetSpec spec = config.topology().replicaset(replicaset).orElseThrow();
        try (DataPlaneClient client = new DataPlaneClient(spec, 20_000, null)) {
            return client.call(readOnly ? DataPlane.READ : DataPlane.WRITE, request, client.budgetDeadlineNs()).get(30, TimeUnit.SECONDS).body();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("replicaset " + replicaset + ": " + e.getCause(), e.getCause());
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
