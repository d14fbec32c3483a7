package io.cairn.server;

import io.cairn.server.cli.CairnCommand;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

/** A {@code cairn} command run in the test's JVM, exactly as {@link Main} runs it, with what it printed. */
public record Cli(int exitCode, String out, String err) {
    public static Cli run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = CairnCommand.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int code = cli.execute(args);
        System.out.printf("cairn %s -> %d %s%n", String.join(" ", args), code, err);
        return new Cli(code, out.toString(), err.toString());
    }
}
