package io.cairn.server.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.server.admin.AdminClient;
import io.cairn.server.admin.AdminServer;
import io.cairn.server.config.Setting;
import io.cairn.server.control.LiveSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code cairn config show|set}: the settings that change at run time with no restart
 * ({@link LiveSettings}), read from and written to the coordinator leader's admin port, which
 * keeps them in the coordinator group (a new leader keeps them).
 */
@Command(name = "config", mixinStandardHelpOptions = true, description = "Show or change the settings that change at run time (rebalancer limits and throttles).",
        subcommands = {ConfigCommand.Show.class, ConfigCommand.Set.class, ConfigCommand.Settings.class})
final class ConfigCommand implements Runnable {
    @Override
    public void run() {
        new picocli.CommandLine(this).usage(System.out);
    }

    @Command(name = "show", mixinStandardHelpOptions = true, description = "Print every run-time setting: its value, where it comes from, what it means.")
    static final class Show implements Callable<Integer> {
        @Mixin ClusterAccess access;
        @Option(names = "--json", description = "print JSON") boolean json;
        @Spec CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            Map<String, Object> settings = AdminClient.getJson(ClusterAccess.coordinatorLeader(access.load()) + "/settings");
            if (settings == null) throw new CairnException(ErrorCode.UNAVAILABLE, "the coordinator leader did not answer for its settings");
            print(spec.commandLine().getOut(), settings, json);
            return 0;
        }
    }

    @Command(name = "set", mixinStandardHelpOptions = true,
            description = "Change run-time settings now, on the coordinator group (NAME=default: back to the config file's value).")
    static final class Set implements Callable<Integer> {
        @Mixin ClusterAccess access;
        @Parameters(arity = "1..*", paramLabel = "NAME=VALUE", description = "e.g. rebalancer.maxBytesPerSecond=10000000") List<String> assignments;
        @Spec CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            StringBuilder query = new StringBuilder();
            for (String a : assignments) {
                if (!a.contains("=")) throw new CairnException(ErrorCode.INVALID_CONFIG, "'" + a + "' is not NAME=VALUE (run-time settings: " + LiveSettings.keys() + ")");
                int eq = a.indexOf('=');
                if (query.length() > 0) query.append('&');
                query.append(URLEncoder.encode(a.substring(0, eq), StandardCharsets.UTF_8)).append('=')
                        .append(URLEncoder.encode(a.substring(eq + 1), StandardCharsets.UTF_8));
            }
            AdminClient.Answer r = AdminClient.post(ClusterAccess.coordinatorLeader(access.load()) + "/settings?" + query);
            int status = r.status();
            if (status != 200) {
                // refused (an unknown name, a bad value: nothing changed) or no answer: one line on stderr, exit 2
                throw new CairnException(status == 400 ? ErrorCode.INVALID_CONFIG : ErrorCode.UNAVAILABLE, r.body().trim());
            }
            print(spec.commandLine().getOut(), AdminServer.JSON.readValue(r.body(),
                    new TypeReference<Map<String, Object>>() {}), false);
            return 0;
        }
    }

    @Command(name = "settings", mixinStandardHelpOptions = true,
            description = "Print every setting of the config file: its default, unit, bounds and meaning (no cluster needed).")
    static final class Settings implements Callable<Integer> {
        @Spec CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            out.print(table());
            out.flush();
            return 0;
        }
    }

    /** The settings table ({@link Setting}) as {@code cairn config settings} prints it, one line per setting. */
    static String table() {
        StringBuilder out = new StringBuilder(String.format("%-44s %-10s %-12s %-20s %-18s %s%n", "setting", "type", "default", "unit", "bounds", "meaning"));
        for (Setting s : Setting.values()) {
            String value = String.valueOf(s.defaultValue());
            out.append(String.format("%-44s %-10s %-12s %-20s %-18s %s%n", s.key(), s.type().getSimpleName(),
                    value.isEmpty() ? "\"\"" : value.length() > 12 ? "(see meaning)" : value, s.unit(), s.bounds(), s.meaning()));
        }
        return out.toString();
    }

    /** One line per setting: name, value, source (with the config file's value when overridden), meaning. */
    private static void print(PrintWriter out, Map<String, Object> settings, boolean json) throws Exception {
        if (json) {
            out.println(AdminServer.JSON.writeValueAsString(settings));
        } else {
            settings.forEach((name, o) -> {
                Map<?, ?> s = (Map<?, ?>) o;
                boolean file = "config file".equals(s.get("source"));
                out.printf("%-38s %-12s %-34s %s%n", name, s.get("value"),
                        file ? "(config file)" : "(set at run time; file: " + s.get("configFile") + ")", s.get("meaning"));
            });
        }
        out.flush();
    }
}
