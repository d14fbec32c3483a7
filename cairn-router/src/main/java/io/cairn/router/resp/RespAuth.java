package io.cairn.router.resp;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
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
 * <p>The password is kept only as its SHA-256 digest (what Redis's ACL keeps) and compared in
 * constant time, so a heap dump or a log of this object shows no password. No salt: the digest
 * never leaves the process, and the config file holds the password itself anyway.
 *
 * <p>Failed attempts are counted ({@link #failures}) and limited per client address by an
 * {@link AuthFailureLimiter}; while an address is limited every AUTH from it is refused, also with
 * the right password, so guessing costs the attacker the window each time.
 */
public final class RespAuth {
    /** Failed AUTH attempts an address may make per window before it is refused until the window ends. */
    public static final int DEFAULT_MAX_FAILURES_PER_WINDOW = 10;
    public static final Duration DEFAULT_FAILURE_WINDOW = Duration.ofSeconds(60);
    /** Addresses remembered at once; the least recently failing is forgotten first. */
    public static final int DEFAULT_TRACKED_ADDRESSES = 10_000;
    static final String DEFAULT_USER = "default";

    private volatile byte[] passwordDigest;
    private final AuthFailureLimiter limiter;
    private final LongAdder failures = new LongAdder();
    private final LongAdder refusedByLimit = new LongAdder();

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
        passwordDigest = password == null || password.isEmpty() ? null : sha256(password.getBytes(StandardCharsets.UTF_8));
    }

    /** Whether a new connection must authenticate. */
    public boolean required() {
        return passwordDigest != null;
    }

    /** Failed AUTH attempts since start (wrong user or password). */
    public long failures() {
        return failures.sum();
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
        if (DEFAULT_USER.equals(user) && matches(password)) return Verdict.OK;
        failures.increment();
        limiter.failed(address);
        return Verdict.WRONGPASS;
    }

    /** Seconds until {@code address} may try again (at least 1). */
    long retryAfterSeconds(String address) {
        return Math.max(1, (limiter.nanosUntilAllowed(address) + 999_999_999L) / 1_000_000_000L);
    }

    private boolean matches(byte[] password) {
        byte[] digest = passwordDigest;
        return digest == null || MessageDigest.isEqual(digest, sha256(password)); // nopass: any password
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
