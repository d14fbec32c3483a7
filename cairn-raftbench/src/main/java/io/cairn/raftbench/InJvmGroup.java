package io.cairn.raftbench;

import com.sun.management.OperatingSystemMXBean;

import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Three members in this JVM, talking over loopback sockets as they would between hosts. */
final class InJvmGroup implements Group {
    private final List<Member> members = new ArrayList<>();
    private final List<RocksApplier> appliers = new ArrayList<>();

    InJvmGroup(Engine engine, Path dir) throws Exception {
        List<InetSocketAddress> peers = Ports.loopback(3);
        try {
            for (int i = 0; i < 3; i++) {
                RocksApplier applier = new RocksApplier(dir.resolve("m" + i).resolve("db"));
                appliers.add(applier);
                members.add(engine.start(new MemberSpec(i, peers, dir.resolve("m" + i).resolve("raft"), applier)));
            }
        } catch (Exception e) {
            close();
            throw e;
        }
    }

    @Override
    public Load.Result run(int writesPerEntry, int proposers, Duration duration) throws Exception {
        return Load.run(leader(), writesPerEntry, proposers, duration);
    }

    private Member leader() throws InterruptedException {
        long deadline = System.nanoTime() + Ports.LEADER_WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            for (Member m : members) if (m.isLeader()) return m;
            Thread.sleep(20);
        }
        throw new IllegalStateException("no leader within " + Ports.LEADER_WAIT);
    }

    @Override
    public Duration cpu() {
        return Duration.ofNanos(((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime());
    }

    @Override
    public long[] appliedWrites() {
        return appliers.stream().mapToLong(RocksApplier::appliedWrites).toArray();
    }

    @Override
    public void close() throws Exception {
        for (Member m : members) m.close();
        for (RocksApplier a : appliers) a.close();
    }
}
