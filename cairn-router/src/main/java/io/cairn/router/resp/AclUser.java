package io.cairn.router.resp;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Predicate;

/**
 * One ACL user as Redis 7 models it: on or off, passwords (kept as SHA-256 digests, like Redis),
 * key patterns, and an ordered list of command rules ({@code +@read}, {@code -set}, ...) that decide,
 * last match wins, whether the user may run a command. Immutable: {@link #apply} returns a new user.
 *
 * <p>{@link #describe()} is the rule text of {@code ACL LIST} and also what the coordinator stores
 * ({@link #parse} reads it back), so a user survives as exactly the rules that made it.
 */
record AclUser(String name, boolean enabled, boolean nopass, Set<String> passwordHashes, List<String> keyPatterns,
               List<String> commandRules) {

    /** Key patterns, passwords and command rules one user may have: its rule text is one coordinator setting. */
    static final int MAX_PATTERNS = 64;
    static final int MAX_PASSWORDS = 16;
    static final int MAX_COMMAND_RULES = 128;

    AclUser {
        passwordHashes = Set.copyOf(passwordHashes);
        keyPatterns = List.copyOf(keyPatterns);
        commandRules = List.copyOf(commandRules);
    }

    /** A user ACL SETUSER creates: off, no passwords, no keys, no commands. */
    static AclUser created(String name) {
        return new AclUser(name, false, false, Set.of(), List.of(), List.of("-@all"));
    }

    /** The default user: everything, with this password (null: nopass). */
    static AclUser defaultUser(byte[] passwordDigest) {
        Set<String> hashes = passwordDigest == null ? Set.of() : Set.of(HexFormat.of().formatHex(passwordDigest));
        return new AclUser(RespAuth.DEFAULT_USER, true, passwordDigest == null, hashes, List.of("*"), List.of("+@all"));
    }

    boolean acceptsPassword(byte[] password) {
        if (!enabled) return false;
        if (nopass) return true;
        String given = HexFormat.of().formatHex(sha256(password));
        boolean match = false;
        for (String h : passwordHashes) match |= MessageDigest.isEqual(h.getBytes(StandardCharsets.US_ASCII), given.getBytes(StandardCharsets.US_ASCII));
        return match;
    }

    /** Whether the rules let this user run the command with these categories; the last rule that matches decides. */
    boolean mayRun(String command, Set<String> categories) {
        if (commandRules.size() == 1 && commandRules.get(0).equals("+@all")) return true; // the default user: no work per command
        boolean allowed = false;
        for (String rule : commandRules) {
            boolean plus = rule.charAt(0) == '+';
            String what = rule.substring(1);
            if (what.equals("@all") || (what.startsWith("@") && categories.contains(what.substring(1))) || what.equals(command)) {
                allowed = plus;
            }
        }
        return allowed;
    }

    boolean mayAccess(String key) {
        for (String pattern : keyPatterns) if (Glob.matches(pattern, key)) return true;
        return false;
    }

    /**
     * This user with {@code rules} applied in order (ACL SETUSER's modifiers).
     *
     * @param knownCommand whether a command name exists (for +cmd / -cmd)
     * @throws IllegalArgumentException with Redis's text for the first bad rule; nothing is applied then
     */
    AclUser apply(List<String> rules, Predicate<String> knownCommand) {
        Builder b = new Builder(this);
        for (String rule : rules) b.apply(rule, knownCommand);
        return b.build();
    }

    /** The rule text of ACL LIST, without the leading "user name". */
    String describe() {
        List<String> parts = new ArrayList<>();
        parts.add(enabled ? "on" : "off");
        if (nopass) parts.add("nopass");
        for (String h : passwordHashes) parts.add("#" + h);
        for (String p : keyPatterns) parts.add("~" + p);
        parts.add("resetchannels");
        parts.addAll(commandRules);
        return String.join(" ", parts);
    }

    /** A user from {@link #describe()}'s text (as stored); null when it does not parse (logged by the caller). */
    static AclUser parse(String name, String text) {
        try {
            AclUser blank = new AclUser(name, false, false, Set.of(), List.of(), List.of());
            return blank.apply(List.of(text.trim().split("\\s+")), c -> true);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    private static final class Builder {
        final String name;
        boolean enabled;
        boolean nopass;
        final Set<String> hashes;
        final List<String> patterns;
        final List<String> rules;

        Builder(AclUser u) {
            name = u.name;
            enabled = u.enabled;
            nopass = u.nopass;
            hashes = new LinkedHashSet<>(u.passwordHashes);
            patterns = new ArrayList<>(u.keyPatterns);
            rules = new ArrayList<>(u.commandRules);
        }

        void apply(String rule, Predicate<String> knownCommand) {
            String lower = rule.toLowerCase(Locale.ROOT);
            switch (lower) {
                case "on" -> enabled = true;
                case "off" -> enabled = false;
                case "nopass" -> {
                    nopass = true;
                    hashes.clear();
                }
                case "resetpass" -> {
                    nopass = false;
                    hashes.clear();
                }
                case "allkeys" -> {
                    patterns.clear();
                    patterns.add("*");
                }
                case "resetkeys" -> patterns.clear();
                case "allcommands" -> setAll("+@all");
                case "nocommands" -> setAll("-@all");
                case "resetchannels", "allchannels" -> { } // no pub/sub in Cairn: accepted, nothing to keep
                case "reset" -> {
                    enabled = false;
                    nopass = false;
                    hashes.clear();
                    patterns.clear();
                    setAll("-@all");
                }
                default -> applyValued(rule, lower, knownCommand);
            }
        }

        private void applyValued(String rule, String lower, Predicate<String> knownCommand) {
            char first = rule.isEmpty() ? ' ' : rule.charAt(0);
            String rest = rule.isEmpty() ? "" : rule.substring(1);
            switch (first) {
                case '>' -> addHash(HexFormat.of().formatHex(sha256(rest.getBytes(StandardCharsets.UTF_8))));
                case '<' -> hashes.remove(HexFormat.of().formatHex(sha256(rest.getBytes(StandardCharsets.UTF_8))));
                case '#' -> addHash(validHash(rule, rest));
                case '!' -> hashes.remove(validHash(rule, rest));
                case '~' -> {
                    if (patterns.size() >= MAX_PATTERNS) throw error(rule, "at most " + MAX_PATTERNS + " key patterns per user");
                    if (!patterns.contains(rest)) patterns.add(rest);
                }
                case '+', '-' -> commandRule(rule, lower, knownCommand);
                default -> throw error(rule, "Syntax error");
            }
        }

        private void addHash(String hash) {
            if (hashes.size() >= MAX_PASSWORDS) throw new IllegalArgumentException("ERR at most " + MAX_PASSWORDS + " passwords per user");
            nopass = false;
            hashes.add(hash);
        }

        private static String validHash(String rule, String hex) {
            if (!hex.matches("[0-9a-fA-F]{64}")) throw error(rule, "The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters");
            return hex.toLowerCase(Locale.ROOT);
        }

        private void commandRule(String rule, String lower, Predicate<String> knownCommand) {
            String what = lower.substring(1);
            if (what.equals("@all")) {
                setAll(lower);
                return;
            }
            boolean known = what.startsWith("@") ? AclCategories.ALL.contains(what.substring(1)) : knownCommand.test(what);
            if (!known || what.contains("|")) throw error(rule, "Unknown command or category name in ACL");
            rules.remove(lower);
            if (rules.size() >= MAX_COMMAND_RULES) throw error(rule, "at most " + MAX_COMMAND_RULES + " command rules per user");
            rules.add(lower);
        }

        private void setAll(String rule) {
            rules.clear();
            rules.add(rule);
        }

        private static IllegalArgumentException error(String rule, String why) {
            return new IllegalArgumentException("ERR Error in ACL SETUSER modifier '" + rule + "': " + why);
        }

        AclUser build() {
            return new AclUser(name, enabled, nopass, hashes, patterns, rules);
        }
    }
}
