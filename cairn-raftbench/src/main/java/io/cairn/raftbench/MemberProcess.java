package io.cairn.raftbench;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

/**
 * One member as its own process, for {@link ProcessGroup}. Arguments: engine, index, peers, folder.
 * Commands on standard input, one answer line each on standard output:
 * {@code ping} -> {@code pong}; {@code role} -> {@code leader|follower}; {@code applied} -> writes applied;
 * {@code run W P MS} -> a {@link Load.Result} line; {@code quit} closes the member and exits.
 */
public final class MemberProcess {
    private MemberProcess() {
    }

    public static void main(String[] args) throws Exception {
        // Engines may print to standard output; answers go to the stream saved here only.
        PrintStream answers = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        Engine engine = Engines.byName(args[0]);
        int index = Integer.parseInt(args[1]);
        Path dir = Path.of(args[3]);
        RocksApplier applier = new RocksApplier(dir.resolve("db"));
        Member member = engine.start(new MemberSpec(index, Ports.parse(args[2]), dir.resolve("raft"), applier));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try {
            for (String line; (line = in.readLine()) != null && !line.equals("quit"); ) {
                String[] f = line.split(" ");
                try {
                    answers.println(switch (f[0]) {
                        case "ping" -> "pong";
                        case "role" -> member.isLeader() ? "leader" : "follower";
                        case "applied" -> Long.toString(applier.appliedWrites());
                        case "run" -> Load.run(member, Integer.parseInt(f[1]), Integer.parseInt(f[2]), Duration.ofMillis(Long.parseLong(f[3]))).line();
                        default -> "error unknown command " + f[0];
                    });
                } catch (Exception e) {
                    answers.println("error " + e);
                }
            }
        } finally {
            member.close();
            applier.close();
        }
        System.exit(0);
    }
}
