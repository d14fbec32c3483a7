package io.cairn.server.control;

import com.sun.net.httpserver.HttpExchange;
import io.cairn.core.BucketRecord;
import io.cairn.core.kv.CollectionMeta;
import io.cairn.core.kv.StoredValue;
import io.cairn.core.move.ChunkEntry;
import io.cairn.core.move.MoveQuery;
import io.cairn.rebalancer.MoverService;
import io.cairn.server.admin.AdminServer;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletionException;

/**
 * The coordinator's admin HTTP for doubled buckets (docs/doubled-buckets.md):
 * <pre>
 * GET  /doubled                             every doubled bucket, each replicaset's state, generation, keys, last write
 * POST /buckets/{id}/resolve?keep={rs}      quarantine the other copies, then make the kept one ACTIVE at a new generation
 * GET  /buckets/{id}/export?from={rs}[&amp;after={base64 key}][&amp;max=N]   one page of a doubled copy's keys
 * </pre>
 * Export pages are text, one key per line: base64(key) TAB base64(value) TAB expireAtMs (0: none), and for a collection a fourth column with its type ("hash", "list", "set", "zset"; the value is then its packed elements, name, value...);
 * the last line is "# next {base64 key}" or "# end".
 */
public final class DoubledAdmin {
    private static final int DEFAULT_PAGE_KEYS = 1_000;

    private final MoverService mover;

    public DoubledAdmin(MoverService mover) {
        this.mover = mover;
    }

    public void list(HttpExchange ex) throws IOException {
        try {
            var doubled = mover.doubled().join();
            if (doubled == null) {
                notLeader(ex);
                return;
            }
            Map<String, Object> out = new LinkedHashMap<>();
            doubled.forEach((bucket, sides) -> {
                Map<String, Object> perRs = new LinkedHashMap<>();
                sides.forEach((rs, r) -> perRs.put(rs, describe(r)));
                out.put(Integer.toString(bucket), perRs);
            });
            AdminServer.sendJson(ex, 200, out);
        } catch (CompletionException e) {
            AdminServer.send(ex, 503, "text/plain", "no answer from the replicasets: " + e.getCause() + "\n");
        }
    }

    private static Map<String, Object> describe(MoveQuery.BucketReport r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("state", r.record().state().name() + (r.record().has(BucketRecord.FLAG_QUARANTINED) ? " (quarantined)" : ""));
        m.put("generation", r.record().generation());
        m.put("doubled", r.record().has(BucketRecord.FLAG_DOUBLED));
        m.put("keys", r.keyCount());
        m.put("lastWrite", r.lastWriteMs() < 0 ? "unknown" : Instant.ofEpochMilli(r.lastWriteMs()).toString());
        return m;
    }

    public void resolve(HttpExchange ex, int bucket) throws IOException {
        String keep = param(ex, "keep");
        if (!"POST".equals(ex.getRequestMethod()) || keep == null) {
            AdminServer.send(ex, 400, "text/plain", "use POST /buckets/<id>/resolve?keep=<replicaset>\n");
            return;
        }
        try {
            String answer = mover.resolve(bucket, keep).join();
            if (answer == null) notLeader(ex);
            else AdminServer.send(ex, answer.startsWith("bucket ") ? 200 : 409, "text/plain", answer + "\n");
        } catch (CompletionException e) {
            AdminServer.send(ex, 503, "text/plain", "no answer: " + e.getCause() + "; run the same resolve again\n");
        }
    }

    public void export(HttpExchange ex, int bucket) throws IOException {
        String from = param(ex, "from");
        if (from == null) {
            AdminServer.send(ex, 400, "text/plain", "use GET /buckets/<id>/export?from=<replicaset>[&after=<base64 key>][&max=N]\n");
            return;
        }
        String after = param(ex, "after");
        String max = param(ex, "max");
        try {
            byte[] afterKey = after == null ? new byte[0] : Base64.getUrlDecoder().decode(after);
            int maxKeys = max == null ? DEFAULT_PAGE_KEYS : Math.max(1, Math.min(10_000, Integer.parseInt(max)));
            MoveQuery.ChunkPage page = mover.exportPage(bucket, from, afterKey, maxKeys).join();
            if (page == null) {
                AdminServer.send(ex, 503, "text/plain", "no answer from " + from + " (or this coordinator is not the leader)\n");
                return;
            }
            if (!page.refusal().isEmpty()) {
                AdminServer.send(ex, 409, "text/plain", page.refusal() + "\n");
                return;
            }
            StringBuilder sb = new StringBuilder();
            Base64.Encoder b64 = Base64.getUrlEncoder();
            for (ChunkEntry e : page.entries()) {
                // A collection's value is its elements as a Packed list (name, value, ...), marked by a fourth column; string lines are unchanged.
                boolean collection = CollectionMeta.isCollection(e.stored());
                byte[] value = collection ? CollectionMeta.packedFieldsOfMoveForm(e.stored()) : StoredValue.data(e.stored());
                sb.append(b64.encodeToString(e.key())).append('\t').append(b64.encodeToString(value))
                        .append('\t').append(Math.max(0, StoredValue.expireAtMs(e.stored())));
                sb.append(collection ? "\t" + StoredValue.typeName(e.stored()) + "\n" : "\n");
            }
            if (page.last() || page.entries().isEmpty()) sb.append("# end\n");
            else sb.append("# next ").append(b64.encodeToString(page.entries().get(page.entries().size() - 1).key())).append('\n');
            AdminServer.send(ex, 200, "text/plain", sb.toString());
        } catch (IllegalArgumentException e) {
            AdminServer.send(ex, 400, "text/plain", "bad parameter: " + e.getMessage() + "\n");
        } catch (CompletionException e) {
            AdminServer.send(ex, 503, "text/plain", "no answer: " + e.getCause() + "\n");
        }
    }

    private static void notLeader(HttpExchange ex) throws IOException {
        AdminServer.send(ex, 409, "text/plain", "this coordinator is not the leader; ask the leader\n");
    }

    private static String param(HttpExchange ex, String name) {
        String q = ex.getRequestURI().getRawQuery();
        if (q == null) return null;
        for (String kv : q.split("&")) {
            int eq = kv.indexOf('=');
            if (eq > 0 && kv.substring(0, eq).equals(name)) return URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8);
        }
        return null;
    }
}
