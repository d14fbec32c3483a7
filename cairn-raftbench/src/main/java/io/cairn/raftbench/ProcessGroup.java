package io.cairn.raftbench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Three members, each its own JVM ({@link MemberProcess}), driven by one line of text at a time on
 * their standard input. The load runs inside the leader's process, as a router's requests would
 * arrive at a leader; CPU is summed over the three processes.
 */
final class ProcessGroup implements Group {
    private static final Duration ANSWER_WAIT = Duration.ofSeconds(120);

    private final List<Child> children = new ArrayList<>();

    private record Child(Process process, PrintWriter in, BufferedReader out) {
        String ask(String command, Duration wait) throws Exception {
            in.println(command);
            in.flush();
            CompletableFuture<String> line = CompletableFuture.supplyAsync(() -> {
                try {
                    return out.readLine();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            String answer = line.get(wait.toMillis(), TimeUnit.MILLISECONDS);
            if (answer == null) throw new IllegalStateException("member process " + process.pid() + " exited (" + command + ")");
            if (answer.startsWith("error ")) throw new IllegalStateException("member process " + process.pid() + ": " + answer.substring(6));
            return answer;
        }
    }

    ProcessGroup(String engine, Path dir, List<String> jvmFlags) throws Exception {
        List<InetSocketAddress> peers = Ports.loopback(3);
        String java = ProcessHandle.current().info().command().orElse("java");
        try {
            for (int i = 0; i < 3; i++) {
                List<String> command = new ArrayList<>(List.of(java));
                command.addAll(jvmFlags);
                command.addAll(List.of("-cp", System.getProperty("java.class.path"), MemberProcess.class.getName(), engine,
                        Integer.toString(i), Ports.format(peers), dir.resolve("m" + i).toString()));
                Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
                children.add(new Child(p, new PrintWriter(p.getOutputStream(), true, StandardCharsets.UTF_8),
                        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))));
            }
            for (Child c : children) c.ask("ping", ANSWER_WAIT);
        } catch (Exception e) {
            close();
            throw e;
        }
    }

    @Override
    public Load.Result run(int writesPerEntry, int proposers, Duration duration) throws Exception {
        Child leader = leader();
        return Load.Result.parse(leader.ask("run " + writesPerEntry + " " + proposers + " " + duration.toMillis(), duration.plus(ANSWER_WAIT)));
    }

    private Child leader() throws Exception {
        long deadline = System.nanoTime() + Ports.LEADER_WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            for (Child c : children) if (c.ask("role", ANSWER_WAIT).equals("leader")) return c;
            Thread.sleep(50);
        }
        throw new IllegalStateException("no leader within " + Ports.LEADER_WAIT);
    }

    @Override
    public Duration cpu() {
        return children.stream().map(c -> c.process.info().totalCpuDuration().orElse(Duration.ZERO)).reduce(Duration.ZERO, Duration::plus);
    }

    @Override
    public long[] appliedWrites() throws Exception {
        long[] applied = new long[children.size()];
        for (int i = 0; i < applied.length; i++) applied[i] = Long.parseLong(children.get(i).ask("applied", ANSWER_WAIT));
        return applied;
    }

    @Override
    public void close() throws Exception {
        for (Child c : children) {
            c.in.println("quit");
            c.in.flush();
        }
        for (Child c : children) {
            if (!c.process.waitFor(30, TimeUnit.SECONDS)) c.process.destroyForcibly().waitFor();
        }
    }
}
