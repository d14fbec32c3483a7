package io.cairn.server.cli;

import io.cairn.archive.ObjectStore;
import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.server.admin.AdminClient;
import io.cairn.server.config.ClusterConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code cairn backup create|list|restore|delete}: whole-cluster backups in the object store (docs/archive.md). */
@Command(name = "backup", mixinStandardHelpOptions = true,
        description = "Back the cluster up to the object store, list backups, restore one into a fresh cluster, delete one.",
        subcommands = {BackupCommand.Create.class, BackupCommand.ListBackups.class, BackupCommand.Restore.class, BackupCommand.Delete.class})
final class BackupCommand implements Runnable {
    private static final DateTimeFormatter ID = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS").withZone(ZoneOffset.UTC);

    @Override
    public void run() {
        new picocli.CommandLine(this).usage(System.out);
    }

    /** The options every subcommand shares: the cluster, and the backup prefix in its archive store. */
    abstract static class Base implements Callable<Integer> {
        @Mixin ClusterAccess access;
        @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;
        @Option(names = "--prefix", defaultValue = ClusterBackup.DEFAULT_PREFIX, description = "backup prefix in the object store (default: ${DEFAULT-VALUE})")
        String prefix;
        @Option(names = "--parallel", defaultValue = "" + ClusterBackup.DEFAULT_PARALLEL_CALLS, description = "buckets in flight at once (default: ${DEFAULT-VALUE})")
        int parallel;

        @Override
        public Integer call() throws Exception {
            ClusterConfig c = access.load();
            if (!c.archive().enabled()) throw new CairnException(ErrorCode.INVALID_CONFIG, "the archive tier is off (archive.store: none): backups need a store");
            try (ObjectStore store = c.archive().open(c.dataDir())) {
                return run(c, new ClusterBackup(c, store, prefix, parallel));
            }
        }

        abstract int run(ClusterConfig c, ClusterBackup backups);

        /** The command line's output (a test's writer when run in a test). */
        java.io.PrintWriter out() {
            return spec.commandLine().getOut();
        }
    }

    @Command(name = "create", mixinStandardHelpOptions = true, description = "Write every bucket as an object under the prefix, then the manifest.")
    static final class Create extends Base {
        @Override
        int run(ClusterConfig c, ClusterBackup backups) {
            Map<String, Object> info = AdminClient.getJson(ClusterAccess.coordinatorLeader(c) + "/info");
            long epoch = info != null && info.get("epoch") instanceof Number n ? n.longValue() : c.topology().epoch();
            String id = ID.format(Instant.now());
            var m = backups.create(id, epoch, out()::println);
            out().printf("backup %s: %d buckets, %d keys, %d bytes, epoch %d%n", m.id(), m.bucketCount(), m.keys(), m.sizeBytes(), m.epoch());
            return 0;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List complete backups (those with a manifest), oldest first.")
    static final class ListBackups extends Base {
        @Override
        int run(ClusterConfig c, ClusterBackup backups) {
            for (var m : backups.list()) {
                out().printf("%s  %s  epoch %d  %d buckets  %d keys  %d bytes%n", m.id(), Instant.ofEpochMilli(m.createdMs()), m.epoch(),
                        m.bucketCount(), m.keys(), m.sizeBytes());
            }
            return 0;
        }
    }

    @Command(name = "restore", mixinStandardHelpOptions = true,
            description = {"Restore a backup into this fresh, empty cluster: buckets adopted as archived, restored on first access.",
                    "With --replicaset RS: rebuild only RS, which lost its data, in the live cluster (buckets moved away since the backup are contained as doubled)."})
    static final class Restore extends Base {
        @Parameters(index = "0", description = "backup id (see cairn backup list)") String id;
        @Option(names = "--replicaset", description = "rebuild only this replicaset (it lost its data) from the backup's copy of its buckets")
        String replicaset;
        @Option(names = "--resume", description = "with --replicaset: continue an interrupted rebuild (buckets rebuilt already are skipped)")
        boolean resume;

        @Override
        int run(ClusterConfig c, ClusterBackup backups) {
            if (replicaset != null) {
                var m = backups.restoreReplicaset(id, replicaset, resume, out()::println);
                long n = m.buckets().stream().filter(e -> e.replicaset().equals(replicaset)).count();
                out().printf("replicaset %s rebuilt from backup %s: %d buckets at their backup generations (served after a restore on first access;"
                        + " buckets that moved away since are contained as doubled: see cairn bucket doubled)%n", replicaset, m.id(), n);
                return 0;
            }
            var m = backups.restore(id, out()::println);
            out().printf("backup %s restored: %d buckets, %d keys (served after a restore on first access)%n", m.id(), m.bucketCount(), m.keys());
            return 0;
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true,
            description = {"Delete a backup: its manifest first (it is no longer listed or restorable), then its objects.",
                    "Also finishes an incomplete backup (a create or delete that was interrupted). Never run it on a backup being created."})
    static final class Delete extends Base {
        @Parameters(index = "0", description = "backup id (see cairn backup list)") String id;

        @Override
        int run(ClusterConfig c, ClusterBackup backups) {
            var d = backups.delete(id, out()::println);
            out().printf("backup %s deleted%s: %d objects, %d bytes%n", id, d.complete() ? "" : " (it was incomplete: no manifest)", d.objects(),
                    d.sizeBytes());
            return 0;
        }
    }
}
