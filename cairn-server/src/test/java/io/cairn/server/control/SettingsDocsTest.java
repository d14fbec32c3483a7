package io.cairn.server.control;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.cairn.server.Cli;
import io.cairn.server.config.Setting;
import io.cairn.storage.ReplicationEngine;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/operations.md and the one table of settings ({@link Setting}) agree: the example config shows
 * every setting of every optional section with the table's default, and nothing the table lacks; the
 * run-time settings table names every setting {@code cairn config set} takes.
 */
class SettingsDocsTest {
    private static final Path GUIDE = Path.of("..", "docs", "operations.md");

    @Test
    void theGuidesExampleShowsEverySettingWithItsDefaultAndNoOther() throws IOException {
        String doc = Files.readString(GUIDE);
        int start = doc.indexOf("```yaml\n") + "```yaml\n".length();
        JsonNode example = new ObjectMapper(new YAMLFactory()).readTree(doc.substring(start, doc.indexOf("```", start)));

        Set<String> documented = new LinkedHashSet<>();
        Set<String> sections = new LinkedHashSet<>();
        for (Setting s : Setting.values()) sections.add(s.section());
        for (String section : sections) {
            assertThat(example.has(section)).as("the example shows the %s: section", section).isTrue();
            for (Iterator<String> it = example.get(section).fieldNames(); it.hasNext(); ) documented.add(section + "." + it.next());
        }
        List<String> table = new ArrayList<>();
        for (Setting s : Setting.values()) table.add(s.key());
        assertThat(documented).as("settings in docs/operations.md's example").containsExactlyInAnyOrderElementsOf(table);

        for (Setting s : Setting.values()) {
            JsonNode shown = example.get(s.section()).get(s.settingName());
            Object expected = s == Setting.STORAGE_ENGINE ? ReplicationEngine.BUILT_IN_DEFAULT.configName() : s.defaultValue();
            if (expected instanceof Map<?, ?> nested) {
                for (var e : nested.entrySet()) {
                    assertThat(shown.path(String.valueOf(e.getKey())).asText()).as("%s.%s", s.key(), e.getKey()).isEqualTo(String.valueOf(e.getValue()));
                }
            } else {
                assertThat(shown.asText()).as("the default of %s in docs/operations.md", s.key()).isEqualTo(String.valueOf(expected));
            }
        }
    }

    @Test
    void cairnConfigSettingsPrintsEverySettingWithItsUnitAndBounds() {
        Cli cli = Cli.run("config", "settings");
        assertThat(cli.exitCode()).isZero();
        String[] lines = cli.out().split("\n");
        assertThat(lines).hasSize(Setting.values().length + 1);
        assertThat(cli.out()).contains("rebalancer.chunkKeys").containsPattern("rebalancer\\.chunkKeys\\s+Integer\\s+1000\\s+keys\\s+1\\.\\.100000\\s+keys per transfer chunk");
        assertThat(cli.out()).containsPattern("router\\.discoveryIntervalMs\\s+Long\\s+1000\\s+ms\\s+10\\.\\.3600000");
    }

    @Test
    void theRunTimeSettingsTableNamesEverySettingConfigSetTakes() throws IOException {
        String doc = Files.readString(GUIDE);
        String section = doc.substring(doc.indexOf("## Settings that change at run time"));
        section = section.substring(0, section.indexOf("\n## ", 1));
        for (LiveSettings.Live live : LiveSettings.Live.values()) {
            assertThat(section).as("docs/operations.md, run-time settings").contains("`" + live.key + "`");
            assertThat(Setting.of(live.key)).as("a config file setting").isNotNull();
        }
    }
}
