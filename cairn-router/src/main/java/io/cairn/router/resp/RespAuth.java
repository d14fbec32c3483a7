package io.cairn.router.resp;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * Who may use a RESP port (issue 26, item 1): Redis's {@code requirepass}, i.e. the password of
 * the {@code default} user, and the limit on failed AUTH attempts per client address.
 *
 * <p>Without a password the default user is {@code nopass}: every connection starts authenticated
 * (as in Redis). With one, a connection starts unauthenticated and may run only the commands
 * flagged {@code no_auth} (AUTH, HELLO, QUIT) until AUTH or HELLO ... AUTH succeeds. Changing the
 * password ({@link #requirePass}) leaves connections already authenticated as they are, as Redis does.
 *
 * <p>Passwords are kept only as SHA-256 digests (what Redis's ACL keeps, so ACL GETUSER and
 * {@code #<hash>} rules work as in Redis) and compared in constant time. No salt, as in Redis: a
 * salted slow hash (bcrypt, PBKDF2) would cost every AUTH milliseconds of CPU on a router that
 * answers in microseconds; the digests are therefore treated as secrets (never logged, readable
 * only by ACL users allowed to run ACL), and passwords should be long random strings.
 *
 * <p>Users other than the default one ({@link AclUser}) come from an {@link AclStore}: ACL SETUSER
 * writes there and applies at once here; {@link #replaceUsers} takes every router's copy from the
 * store about once a second.
 *
 * <p>Failed attempts are counted ({@link #failures}) and limited per client address by an
 * {@link AuthFailureLimiter}; while an address is limited every AUTH from it is refused, also with
 * the right password, so guessing costs the attacker the window each time.
 */
public final class RespAuth {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(RespAuth.class);
    /** Failed AUTH attempts an address may make per window before it is refused until the window ends. */
    public static final int DEFAULT_MAX_FAILURES_PER_WINDOW = 10;
    public static final Duration DEFAULT_FAILURE_WINDOW = Duration.ofSeconds(60);
    /** Addresses remembered at once; the least recently failing is forgotten first. */
    public static final int DEFAULT_TRACKED_ADDRESSES = 10_000;
    static final String DEFAULT_USER = "default";

    /** The default user requirepass makes, built once: every command of every connection looks its user up. */
    private volatile AclUser configuredDefault;
    /** Users kept in the {@link AclStore} (name -> user); the default user, when absent, comes from requirepass. */
    private volatile Map<String, AclUser> users = Map.of();
    /** Bumped by every local change, so that a stale copy read from the store before it is not applied over it. */
    private final AtomicLong localChanges = new AtomicLong();
    private volatile AclStore store = AclStore.LOCAL;
    private final AuthFailureLimiter limiter;
    private final LongAdder failures = new LongAdder();
    private final LongAdder refusedByLimit = new LongAdder();
    private final LongAdder deniedCommands = new LongAdder();
    private final LongAdder deniedKeys = new LongAdder();

    private RespAuth(String password, AuthFailureLimiter limiter) {
        this.limiter = limiter;
        requirePass(password);
    }

    /** No password: everyone is the default user, as with a Redis without requirepass. */
    public static RespAuth open() {
        return withPassword(null, DEFAULT_MAX_FAILURES_PER_WINDOW, DEFAULT_FAILURE_WINDOW, System::nanoTime);
    }

    /**
     * @param password            the default user's password; null or empty: none (nopass)
     * @param maxFailuresPerWindow failed attempts per client address per window (at least 1)
     * @param window              how long an address's failures count
     * @param nanoTime            the clock of the window
     */
    public static RespAuth withPassword(String password, int maxFailuresPerWindow, Duration window, LongSupplier nanoTime) {
        return new RespAuth(password, new AuthFailureLimiter(maxFailuresPerWindow, window, DEFAULT_TRACKED_ADDRESSES, nanoTime));
    }

    public static RespAuth withPassword(String password) {
        return withPassword(password, DEFAULT_MAX_FAILURES_PER_WINDOW, DEFAULT_FAILURE_WINDOW, System::nanoTime);
    }

    /** Sets or (null, empty) removes the default user's password; new connections follow it. */
    public void requirePass(String password) {
        configuredDefault = AclUser.defaultUser(password == null || password.isEmpty() ? null
                : AclUser.sha256(password.getBytes(StandardCharsets.UTF_8)));
    }

    /** Whether a new connection must authenticate: the default user has a password or is off. */
    public boolean required() {
        AclUser d = user(DEFAULT_USER);
        return !(d.enabled() && d.nopass());
    }

    /** Where ACL SETUSER and DELUSER keep users (default: this process only). */
    public void useStore(AclStore store) {
        this.store = store;
    }

    AclStore store() {
        return store;
    }

    /** The user called {@code name}, or null. */
    AclUser user(String name) {
        AclUser u = users.get(name);
        if (u == null && DEFAULT_USER.equals(name)) return configuredDefault;
        return u;
    }

    Map<String, AclUser> users() {
        Map<String, AclUser> all = new TreeMap<>(users);
        all.putIfAbsent(DEFAULT_USER, user(DEFAULT_USER));
        return all;
    }

    /** A local change (ACL SETUSER or DELUSER once stored): {@code user} null deletes {@code name}. */
    void changed(String name, AclUser user) {
        synchronized (this) {
            Map<String, AclUser> next = new TreeMap<>(users);
            if (user == null) next.remove(name);
            else next.put(name, user);
            users = Map.copyOf(next);
            localChanges.incrementAndGet();
        }
    }

    /** A mark to pass to {@link #replaceUsers} with the users read after taking it. */
    public long changeMark() {
        return localChanges.get();
    }

    /**
     * Every stored user (name -> rule text), as read from the store after {@code mark} was taken:
     * replaces the users unless a local change came in between (the next read carries it). A rule
     * text that does not parse (a newer version's rule) leaves that user out, logged.
     */
    public void replaceUsers(Map<String, String> rulesByName, long mark) {
        Map<String, AclUser> next = new TreeMap<>();
        rulesByName.forEach((name, rules) -> {
            AclUser u = AclUser.parse(name, rules);
            if (u == null) log.warn("ACL user '{}' is stored with rules this router cannot read; it cannot log in here", name);
            else next.put(name, u);
        });
        synchronized (this) {
            if (localChanges.get() != mark) return;
            users = Map.copyOf(next);
        }
    }

    /** User {@code name}'s rule text as stored and shown by ACL LIST, or null. */
    public String describe(String name) {
        AclUser u = user(name);
        return u == null ? null : u.describe();
    }

    /** Failed AUTH attempts since start (wrong user or password). */
    public long failures() {
        return failures.sum();
    }

    /** Commands refused because the user's rules do not allow them (NOPERM), since start. */
    public long deniedCommands() {
        return deniedCommands.sum();
    }

    /** Commands refused because a key is outside the user's patterns (NOPERM), since start. */
    public long deniedKeys() {
        return deniedKeys.sum();
    }

    void countDenied(boolean key) {
        (key ? deniedKeys : deniedCommands).increment();
    }

    /** AUTH attempts refused unchecked because their address had failed too often. */
    public long refusedByLimit() {
        return refusedByLimit.sum();
    }

    /** The outcome of one AUTH attempt. */
    enum Verdict { OK, WRONGPASS, LIMITED }

    /** Checks {@code user}/{@code password} for a client at {@code address} (host only), counting a failure. */
    Verdict authenticate(String user, byte[] password, String address) {
        if (limiter.limited(address)) {
            refusedByLimit.increment();
            return Verdict.LIMITED;
        }
        AclUser u = user(user);
        if (u != null && u.acceptsPassword(password)) return Verdict.OK;
        failures.increment();
        limiter.failed(address);
        return Verdict.WRONGPASS;
    }

    /** Seconds until {@code address} may try again (at least 1). */
    long retryAfterSeconds(String address) {
        return Math.max(1, (limiter.nanosUntilAllowed(address) + 999_999_999L) / 1_000_000_000L);
    }
}
