package io.cairn.server.cli;

import io.cairn.archive.ObjectStore;
import io.cairn.coordinator.CoordinatorClient;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.topology.Topology;
import io.cairn.server.config.ClusterConfig;

import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;

/**
 * What the cluster tests of {@code io.cairn.server} call of the commands' package-private code, in one
 * place, so that the commands stay package-private: each method is the named command's own code.
 */
public final class CliTestAccess {
    private CliTestAccess() {}

    /** {@code cairn status}: what it gathers. */
    public static Map<String, Object> collectStatus(ClusterConfig config) {
        return StatusReport.collect(config);
    }

    /** {@code cairn status}: what it prints of {@link #collectStatus}. */
    public static String renderStatus(Map<String, Object> status) {
        return StatusReport.render(status);
    }

    /** {@code cairn status} as printed. */
    public static String status(ClusterConfig config) {
        return StatusReport.render(StatusReport.collect(config));
    }

    /** {@code cairn bucket show}: every replicaset's record of {@code bucket}. */
    public static Map<String, Object> bucketRecords(ClusterConfig config, int bucket) {
        return BucketCommand.records(config, bucket);
    }

    /** The base URL of the coordinator leader's admin port, as the commands find it. */
    public static String coordinatorLeader(ClusterConfig config) {
        return ClusterAccess.coordinatorLeader(config);
    }

    /** A topology change as {@code cairn topology} proposes it. */
    public static Topology proposeTopology(CoordinatorClient coordinator, Topology current, List<ReplicasetSpec> sets, String reason) {
        return TopologyCommand.propose(coordinator, current, sets, reason);
    }

    /** {@code cairn bucket export}: every page from {@code base} into {@code sink}; the keys exported. */
    public static long exportAll(String base, PrintStream sink) throws IOException, InterruptedException {
        return DoubledCommands.Export.exportAll(base, sink);
    }

    /** What {@code cairn backup create} and {@code restore} report of a backup. */
    public record BackupFigures(int bucketCount, long keys, long sizeBytes) {
        static BackupFigures of(ClusterBackup.Manifest m) {
            return new BackupFigures(m.bucketCount(), m.keys(), m.sizeBytes());
        }
    }

    /** {@code cairn backup create ID} under the default prefix. */
    public static BackupFigures createBackup(ClusterConfig config, ObjectStore store, String id, long epoch) {
        return BackupFigures.of(new ClusterBackup(config, store, ClusterBackup.DEFAULT_PREFIX).create(id, epoch, System.out::println));
    }

    /** {@code cairn backup restore ID} from the default prefix. */
    public static BackupFigures restoreBackup(ClusterConfig config, ObjectStore store, String id) {
        return BackupFigures.of(new ClusterBackup(config, store, ClusterBackup.DEFAULT_PREFIX).restore(id, System.out::println));
    }
}
