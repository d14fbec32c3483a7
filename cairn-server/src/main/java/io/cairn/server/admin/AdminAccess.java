package io.cairn.server.admin;

import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Locale;

/**
 * Who may use an admin HTTP port (issue 26, item 3). Without a token every request is served, as
 * before. With one, a request that changes something (any method but GET and HEAD: node stop and
 * start, moves, pins, resolve, settings) needs {@code Authorization: Bearer <token>}; so does a GET
 * that returns stored data (a bucket export), and with {@code readOpen} false every request does.
 *
 * <p>The token is compared in constant time, so its bytes cannot be guessed one by one from
 * response times. It is a shared secret of the cluster: every process of the cluster, and the CLI,
 * read it from the same config (or the CLI from {@value #TOKEN_ENV}), and a process uses it for its
 * own calls to other processes' admin ports ({@link #authorize}).
 */
public final class AdminAccess {
    /** The environment variable the CLI takes the token from, before the config's. */
    public static final String TOKEN_ENV = "CAIRN_ADMIN_TOKEN";
    private static final String BEARER = "bearer ";
    /** The token this JVM sends with its own admin requests: the last config loaded (empty: none). */
    private static volatile String clientToken = "";

    private final byte[] token;
    private final boolean readOpen;

    /** @param token the bearer token; null or empty: the port is open to everyone */
    public AdminAccess(String token, boolean readOpen) {
        this.token = token == null || token.isEmpty() ? null : token.getBytes(StandardCharsets.UTF_8);
        this.readOpen = readOpen;
    }

    public static AdminAccess open() {
        return new AdminAccess(null, true);
    }

    public boolean tokenRequired() {
        return token != null;
    }

    /** Whether a request of {@code method} to {@code path} with this Authorization header (or null) may be served. */
    public boolean allows(String method, String path, String authorization) {
        if (token == null) return true;
        if (readOpen && isRead(method) && !returnsData(path)) return true;
        return presents(authorization);
    }

    private boolean presents(String authorization) {
        if (authorization == null || authorization.length() <= BEARER.length()
                || !authorization.substring(0, BEARER.length()).toLowerCase(Locale.ROOT).equals(BEARER)) {
            return false;
        }
        byte[] given = authorization.substring(BEARER.length()).trim().getBytes(StandardCharsets.UTF_8);
        return MessageDigest.isEqual(token, given);
    }

    private static boolean isRead(String method) {
        return "GET".equals(method) || "HEAD".equals(method);
    }

    /** Read-only, but hands out stored keys and values: needs the token like a change does. */
    private static boolean returnsData(String path) {
        return path.contains("/export");
    }

    /** Sets the token this JVM's own admin requests carry (from the config just loaded). */
    public static void useClientToken(String token) {
        clientToken = token == null ? "" : token.trim();
    }

    /** The token for this JVM's admin requests: {@value #TOKEN_ENV} when set, else the config's; empty: none. */
    public static String clientToken() {
        String env = System.getenv(TOKEN_ENV);
        return env != null && !env.isBlank() ? env.trim() : clientToken;
    }

    /** Adds the Authorization header when a token is known. */
    public static HttpRequest.Builder authorize(HttpRequest.Builder request) {
        String t = clientToken();
        return t.isEmpty() ? request : request.header("Authorization", "Bearer " + t);
    }
}
