package io.cairn.server.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.tls.ClusterTls;
import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.topology.RouterSpec;
import io.cairn.core.topology.Topology;
import io.cairn.core.topology.TopologyValidator;
import io.cairn.server.admin.AdminAccess;
import io.cairn.server.admin.AdminHttps;
import io.cairn.storage.ReplicationEngine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a cluster config file (YAML). Every setting is declared once, with its default and
 * bounds, in {@link Setting}; unknown keys, wrong types and values out of bounds are refused
 * with the file name and every problem listed, before any process starts.
 */
public final class ConfigLoader {
    /** Settings with defaults: section -> key -> default value ({@link Setting}, the one table of them). */
    static final Map<String, Map<String, Object>> DEFAULTS = Setting.defaultsBySection();
    private static final Set<String> TOP_LEVEL = Set.of("bucketCount", "dataDir", "coordinators", "replicasets", "routers", "storage",
            "router", "rebalancer", "archive", "security");

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);

    private ConfigLoader() {}

    public static ClusterConfig load(Path file) {
        if (!Files.isRegularFile(file)) throw invalid(file, List.of("file not found"));
        JsonNode root;
        try {
            root = YAML.readTree(file.toFile());
        } catch (JsonProcessingException e) {
            throw invalid(file, List.of("not valid YAML: " + e.getOriginalMessage()));
        } catch (IOException e) {
            throw invalid(file, List.of("cannot read: " + e.getMessage()));
        }
        if (root == null || !root.isObject()) throw invalid(file, List.of("expected a mapping at the top level"));
        List<String> problems = new ArrayList<>();
        for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!TOP_LEVEL.contains(name)) problems.add("unknown key '" + name + "' (known: " + String.join(", ", TOP_LEVEL) + ")");
        }
        try {
            int bucketCount = root.path("bucketCount").isMissingNode() ? Topology.DEFAULT_BUCKET_COUNT : strictInt(root.get("bucketCount"), "bucketCount");
            Path base = file.toAbsolutePath().getParent();
            Path dataDir = base.resolve(root.path("dataDir").asText("cairn-data")).normalize();
            List<NodeAddress> coordinators = entries(root, "coordinators", NodeAddress[].class);
            List<ReplicasetSpec> replicasets = entries(root, "replicasets", ReplicasetSpec[].class);
            List<RouterSpec> routers = entries(root, "routers", RouterSpec[].class);
            Topology topology = new Topology(1, bucketCount, coordinators, replicasets, routers);
            problems.addAll(TopologyValidator.problems(topology));
            ObjectNode storage = section(root, "storage", problems);
            ObjectNode router = section(root, "router", problems);
            ObjectNode rebalancer = section(root, "rebalancer", problems);
            ObjectNode archive = section(root, "archive", problems);
            defaultIdleArchivingByStore(archive, root.get("archive"));
            ObjectNode securityNode = section(root, "security", problems);
            if (!problems.isEmpty()) throw invalid(file, problems);
            ClusterConfig.StorageSettings s = convert(storage, ClusterConfig.StorageSettings.class, "storage");
            ClusterConfig.RouterSettings r = convert(router, ClusterConfig.RouterSettings.class, "router");
            s.forNode(dataDir); // validates ranges
            if (ReplicationEngine.parse(s.engine()) == ReplicationEngine.MICRORAFT) {
                for (var rs : topology.replicasets()) for (var n : rs.nodes()) {
                    if (n.dataPort() == 0) {
                        problems.add("storage node " + n.id() + " names no dataPort: the microraft engine needs one for every storage node "
                                + "(a cluster started before dataPort existed runs Ratis: set storage.engine: ratis)");
                    }
                }
                if (!problems.isEmpty()) throw invalid(file, problems);
            }
            r.routerConfig();
            r.respConfig("127.0.0.1", 0); // the client limits must fit together and with the key and value sizes
            ClusterConfig.RebalancerSettings b = convert(rebalancer, ClusterConfig.RebalancerSettings.class, "rebalancer");
            ArchiveSettings a = convert(archive, ArchiveSettings.class, "archive");
            ClusterConfig.SecuritySettings security = convert(securityNode, ClusterConfig.SecuritySettings.class, "security")
                    .withTokenFrom(base);
            AdminAccess.useClientToken(security.adminToken());
            // one cluster identity per process, as the client token: every transport set up from now on uses it
            ClusterTls.install(security.internalTls().load(base));
            AdminHttps.requireClientCertificates(security.internalTls().adminClientCerts());
            return new ClusterConfig(file.toAbsolutePath(), dataDir, topology, s, r, b, a, security);
        } catch (CairnException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            problems.add(e.getMessage());
            throw invalid(file, problems);
        }
    }

    /** The list under {@code name}; an empty entry ("- " alone) is refused by its position. */
    private static <T> List<T> entries(JsonNode root, String name, Class<T[]> type) {
        T[] list = convert(arrayOrEmpty(root, name), type, name);
        for (int i = 0; i < list.length; i++) {
            if (list[i] == null) throw new IllegalArgumentException(name + "[" + i + "]: an empty entry");
        }
        return List.of(list);
    }

    /** Binds a subtree, naming the offending key (e.g. replicasets[0].nodes[1].raftPort) on failure. */
    private static <T> T convert(JsonNode node, Class<T> type, String where) {
        try {
            return YAML.treeToValue(node, type);
        } catch (JsonMappingException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IllegalArgumentException own) throw own; // a record's own range check names the key
            String what = cause instanceof NullPointerException ? "a required value is missing" : e.getOriginalMessage();
            throw new IllegalArgumentException(where + path(e) + ": " + what);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(where + ": " + e.getOriginalMessage());
        }
    }

    private static String path(JsonMappingException e) {
        StringBuilder b = new StringBuilder();
        for (var ref : e.getPath()) {
            if (ref.getFieldName() != null) b.append('.').append(ref.getFieldName());
            else b.append('[').append(ref.getIndex()).append(']');
        }
        return b.toString();
    }

    private static int strictInt(JsonNode node, String name) {
        if (!node.canConvertToInt() || !node.isIntegralNumber()) throw new IllegalArgumentException(name + " must be an integer");
        return node.asInt();
    }

    private static JsonNode arrayOrEmpty(JsonNode root, String name) {
        JsonNode n = root.get(name);
        if (n == null || n.isNull()) return YAML.createArrayNode();
        if (!n.isArray()) throw new IllegalArgumentException(name + " must be a list");
        return n;
    }

    /** The section with defaults filled in; unknown keys are problems. */
    private static ObjectNode section(JsonNode root, String name, List<String> problems) {
        ObjectNode merged = YAML.valueToTree(DEFAULTS.get(name));
        JsonNode given = root.get(name);
        if (given == null || given.isNull()) return merged;
        if (!given.isObject()) {
            problems.add(name + " must be a mapping");
            return merged;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = given.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            Setting setting = Setting.of(name + "." + e.getKey());
            if (!merged.has(e.getKey()) || setting == null) {
                problems.add("unknown key '" + name + "." + e.getKey() + "' (known: " + String.join(", ", DEFAULTS.get(name).keySet()) + ")");
                continue;
            }
            merged.set(e.getKey(), e.getValue());
            String outOfBounds = e.getValue().isNumber() ? setting.problem(e.getValue().numberValue()) : null;
            if (outOfBounds != null) problems.add(outOfBounds);
        }
        return merged;
    }

    /**
     * {@code archive.afterIdleMs} unless given: off with the folder store ({@code cairn up}, one machine: archiving to the
     * same disk frees nothing and costs a restore), {@link ArchiveSettings#DEFAULT_S3_AFTER_IDLE_MS} with an object store.
     */
    private static void defaultIdleArchivingByStore(ObjectNode merged, JsonNode given) {
        boolean explicit = given != null && given.isObject() && given.has("afterIdleMs");
        if (!explicit && ArchiveSettings.S3.equals(merged.path("store").asText())) {
            merged.put("afterIdleMs", ArchiveSettings.DEFAULT_S3_AFTER_IDLE_MS);
        }
    }

    private static CairnException invalid(Path file, List<String> problems) {
        return new CairnException(ErrorCode.INVALID_CONFIG, "invalid config " + file + ":\n  - " + String.join("\n  - ", problems));
    }

    /** The file as a plain tree, for tools that edit it (e.g. {@code cairn topology add-replicaset}). */
    public static Map<String, Object> readTree(Path file) throws IOException {
        return YAML.readValue(file.toFile(), new TypeReference<LinkedHashMap<String, Object>>() {});
    }

    /** Writes a config file for a local cluster (used by {@code cairn up}). */
    public static void write(Path file, Map<String, Object> tree) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        YAML.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), tree);
    }
}
