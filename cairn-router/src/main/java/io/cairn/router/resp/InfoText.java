package io.cairn.router.resp;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Renders INFO sections the way Redis does: "# Name", key:value lines, blank line between. */
final class InfoText {
    private InfoText() {}

    /** Whether the requested section list (lower case; empty = default) includes {@code section}. */
    static boolean wants(List<String> wanted, String section) {
        return wanted.isEmpty() || wanted.contains(section) || wanted.contains("all")
                || wanted.contains("everything") || wanted.contains("default");
    }

    static String render(Map<String, Map<String, String>> sections, List<String> wanted) {
        StringBuilder text = new StringBuilder();
        for (Map.Entry<String, Map<String, String>> section : sections.entrySet()) {
            if (!wants(wanted, section.getKey())) continue;
            if (text.length() > 0) text.append("\r\n");
            text.append("# ").append(title(section.getKey())).append("\r\n");
            section.getValue().forEach((k, v) -> text.append(k).append(':').append(v).append("\r\n"));
        }
        return text.toString();
    }

    private static String title(String name) {
        return name.isEmpty() ? name : name.substring(0, 1).toUpperCase(Locale.ROOT) + name.substring(1);
    }
}
