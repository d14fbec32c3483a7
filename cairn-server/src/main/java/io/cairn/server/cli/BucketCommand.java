package io.cairn.server.cli;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.server.admin.AdminClient;
import io.cairn.server.admin.AdminHttps;
import io.cairn.server.config.ClusterConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code cairn bucket}: look at one bucket on every replicaset, move it by hand, pin or unpin it. */
@Command(name = "bucket", mixinStandardHelpOptions = true,
        description = "Find the bucket of a key; show, move, pin, unpin, archive or restore one bucket; list, resolve and export doubled buckets.",
        subcommands = {BucketOf.class, BucketCommand.Show.class, BucketCommand.Move.class, BucketCommand.Pin.class, BucketCommand.Unpin.class,
                BucketCommand.Archive.class, BucketCommand.Restore.class,
                DoubledCommands.Doubled.class, DoubledCommands.Resolve.class, DoubledCommands.Export.class})
final class BucketCommand implements Runnable {
    @Override
    public void run() {
        new picocli.CommandLine(this).usage(System.out);
    }

    static Map<String, Object> records(ClusterConfig c, int bucket) {
        Map<String, Object> r = AdminClient.getJson(ClusterAccess.coordinatorLeader(c) + "/buckets/" + bucket);
        if (r == null) throw new CairnException(ErrorCode.UNAVAILABLE, "the coordinator leader did not answer for bucket " + bucket);
        return r;
    }

    @Command(name = "show", mixinStandardHelpOptions = true, description = "Print the bucket's record on every replicaset that has one.")
    static final class Show implements Callable<Integer> {
        @Mixin ClusterAccess access;
        @Parameters(index = "0", description = "bucket id") int bucket;

        @Override
        public Integer call() {
            Map<String, Object> records = records(access.load(), bucket);
            if (records.isEmpty()) System.out.println("bucket " + bucket + ": no replicaset has a record of it");
            records.forEach((rs, r) -> System.out.printf("bucket %d on %-8s %s%n", bucket, rs, r));
            return 0;
        }
    }

    @Command(name = "move", mixinStandardHelpOptions = true, description = "Move a bucket to another replicaset now.")
    static final class Move implements Callable<Integer> {
        @Mixin ClusterAccess access;
        @Parameters(index = "0", description = "bucket id") int bucket;
        @Option(names = "--to", required = true, description = "destination replicaset") String to;
        @Option(names = "--wait", description = "wait until the destination owns the bucket") boolean waitFlag;
        @Option(names = "--wait-seconds", defaultValue = "600", description = "give up waiting after this (default: ${DEFAULT-VALUE})") long waitSeconds;

        @Override
        public Integer call() throws Exception {
            ClusterConfig c = access.load();
            AdminClient.Answer r = AdminClient.post(ClusterAccess.coordinatorLeader(c) + "/moves/" + bucket + "?to=" + to);
            int status = r.status();
            if (status != 202) {
                // refused (an unknown target, a weight-0 replicaset, a pinned bucket) or no leader: one line on stderr, exit 2
                throw new CairnException(status == 404 || status == 400 ? ErrorCode.INVALID_CONFIG : ErrorCode.UNAVAILABLE, r.body().trim());
            }
            System.out.print(r.body());
            if (!waitFlag) return 0;
            long deadline = System.nanoTime() + Duration.ofSeconds(waitSeconds).toNanos();
            while (System.nanoTime() < deadline) {
                Object state = records(c, bucket).get(to);
                if (state != null && state.toString().startsWith("ACTIVE")) {
                    System.out.println("bucket " + bucket + " is ACTIVE on " + to);
                    return 0;
                }
                Thread.sleep(500);
            }
            throw new CairnException(ErrorCode.TIMEOUT, "bucket " + bucket + " is not on " + to + " after " + waitSeconds + " s");
        }
    }

    abstract static class PinBase implements Callable<Integer> {
        @Mixin ClusterAccess access;
        @Parameters(index = "0", description = "bucket id") int bucket;

        abstract String action();

        @Override
        public Integer call() {
            AdminClient.Answer r = AdminClient.post(ClusterAccess.coordinatorLeader(access.load()) + "/buckets/" + bucket + "/" + action());
            System.out.print(r.body());
            return r.status() == 200 ? 0 : 1;
        }
    }

    @Command(name = "pin", mixinStandardHelpOptions = true, description = "Pin a bucket where it is: the rebalancer never moves it.")
    static final class Pin extends PinBase {
        @Override
        String action() {
            return "pin";
        }
    }

    @Command(name = "unpin", mixinStandardHelpOptions = true, description = "Let the rebalancer move a pinned bucket again.")
    static final class Unpin extends PinBase {
        @Override
        String action() {
            return "unpin";
        }
    }

    /**
     * Asks the leader of the replicaset that owns the bucket (from the coordinator's view of the
     * records) to archive or restore it; the other members answer 421 and are skipped.
     */
    abstract static class ArchiveBase implements Callable<Integer> {
        @Mixin ClusterAccess access;
        @Parameters(index = "0", description = "bucket id") int bucket;

        abstract String action();

        @Override
        public Integer call() {
            ClusterConfig c = access.load();
            String owner = null;
            for (Map.Entry<String, Object> e : records(c, bucket).entrySet()) {
                String state = String.valueOf(e.getValue());
                if (state.startsWith("ACTIVE") || state.startsWith("PINNED")) owner = e.getKey();
            }
            if (owner == null) throw new CairnException(ErrorCode.WRONG_BUCKET, "no replicaset owns bucket " + bucket + " (see cairn bucket show)");
            String rs = owner;
            var spec = c.topology().replicasets().stream().filter(r -> r.id().equals(rs)).findFirst()
                    .orElseThrow(() -> new CairnException(ErrorCode.UNKNOWN_NODE, "replicaset " + rs + " is not in " + c.source()));
            for (var n : spec.nodes()) {
                AdminClient.Answer r = AdminClient.post(AdminHttps.base(n.host(), n.adminPort()) + "/buckets/" + bucket + "/" + action());
                if (r.status() == 421 || r.status() == 0) continue; // not the leader, or down: ask the next member
                System.out.print(r.body());
                return r.status() == 200 ? 0 : 1;
            }
            throw new CairnException(ErrorCode.UNAVAILABLE, "no member of " + rs + " answered as its leader");
        }
    }

    @Command(name = "archive", mixinStandardHelpOptions = true,
            description = "Write the bucket to the archive tier now and drop it locally; the first read or write restores it.")
    static final class Archive extends ArchiveBase {
        @Override
        String action() {
            return "archive";
        }
    }

    @Command(name = "restore", mixinStandardHelpOptions = true, description = "Restore an archived bucket now (the object stays in the store).")
    static final class Restore extends ArchiveBase {
        @Override
        String action() {
            return "restore";
        }
    }
}
