package io.cairn.server.process;

import com.fasterxml.jackson.core.type.TypeReference;
import io.cairn.core.topology.Topology;
import io.cairn.server.admin.AdminServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The last topologies a process learned from its coordinator, kept in its own folder (issue 21:
 * "every node keeps the last 100 epochs"): a router restarted while no coordinator answers starts
 * with the newest of them instead of waiting, and an operator can read what a node last knew. One
 * JSON file, rewritten whole (write then rename) when a newer epoch arrives.
 */
final class LocalTopologies {
    static final String FILE = "topologies.json";
    static final int KEPT = 100;
    private static final Logger log = LoggerFactory.getLogger(LocalTopologies.class);

    private final Path file;
    private final List<Topology> kept = new ArrayList<>();

    LocalTopologies(Path folder) {
        this.file = folder.resolve(FILE);
        if (!Files.exists(file)) return;
        try {
            kept.addAll(AdminServer.JSON.readValue(file.toFile(), new TypeReference<List<Topology>>() {}));
        } catch (IOException e) {
            log.warn("{} is unreadable ({}); the topologies it kept are forgotten", file, e.getMessage());
        }
    }

    /** Keeps {@code t} if it is newer than the newest kept; the oldest go past {@link #KEPT}. */
    synchronized void record(Topology t) {
        if (t == null || (!kept.isEmpty() && kept.get(kept.size() - 1).epoch() >= t.epoch())) return;
        kept.add(t);
        while (kept.size() > KEPT) kept.remove(0);
        try {
            Files.createDirectories(file.getParent());
            Path tmp = file.resolveSibling(FILE + ".tmp");
            AdminServer.JSON.writeValue(tmp.toFile(), kept);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            log.warn("could not keep topology epoch {} in {}: {}", t.epoch(), file, e.getMessage());
        }
    }

    /** The newest topology kept, if any. */
    synchronized Optional<Topology> latest() {
        return kept.isEmpty() ? Optional.empty() : Optional.of(kept.get(kept.size() - 1));
    }

    /** Every topology kept, oldest first. */
    synchronized List<Topology> all() {
        return List.copyOf(kept);
    }
}
