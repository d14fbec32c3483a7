package io.cairn.router.resp;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongSupplier;

/**
 * TLS on the RESP port (issue 26), as Redis's {@code tls-cert-file}, {@code tls-key-file},
 * {@code tls-ca-cert-file} and {@code tls-auth-clients}: PEM files, the key in PKCS#8; with a CA, a
 * client certificate signed by it is asked for (required when {@code authClients}). Clients such as
 * {@code redis-cli --tls}, Jedis and Lettuce connect unchanged.
 *
 * <p>Certificates are reloaded without a restart: a new connection checks the files at most once a
 * second and, when one changed, builds a new context for it and every later connection (connections
 * already open keep theirs). A change that does not load (a half-copied file) keeps the old context and
 * is logged once, until the files load again.
 */
public final class RespTls {
    private static final Logger log = LoggerFactory.getLogger(RespTls.class);
    private static final long CHECK_EVERY_NANOS = 1_000_000_000L;

    /** The files; {@code ca} null for no client certificates. */
    public record Certificates(Path cert, Path key, Path ca, boolean authClients) {}

    private final Certificates files;
    private final LongSupplier nanoClock;
    private volatile SslContext context;
    private volatile String loadedStamp;
    private volatile long checkedNanos;
    private volatile boolean failureLogged;

    private RespTls(Certificates files, LongSupplier nanoClock, SslContext context, String stamp) {
        this.files = files;
        this.nanoClock = nanoClock;
        this.context = context;
        this.loadedStamp = stamp;
        this.checkedNanos = nanoClock.getAsLong();
    }

    /** @throws IllegalArgumentException naming the file that is missing or does not load */
    public static RespTls load(Certificates files) {
        return load(files, System::nanoTime);
    }

    static RespTls load(Certificates files, LongSupplier nanoClock) {
        String stamp = stamp(files);
        return new RespTls(files, nanoClock, build(files), stamp);
    }

    /** A TLS handler for a new connection, from the newest certificates that load. */
    SslHandler newHandler(ByteBufAllocator alloc) {
        reloadIfChanged();
        return context.newHandler(alloc);
    }

    private void reloadIfChanged() {
        long now = nanoClock.getAsLong();
        if (now - checkedNanos < CHECK_EVERY_NANOS) return;
        checkedNanos = now;
        String stamp;
        try {
            stamp = stamp(files);
        } catch (IllegalArgumentException e) {
            logFailureOnce(e.getMessage());
            return;
        }
        if (stamp.equals(loadedStamp)) return;
        try {
            context = build(files);
            loadedStamp = stamp;
            failureLogged = false;
            log.info("RESP TLS: certificates reloaded from {}", files.cert());
        } catch (IllegalArgumentException e) {
            logFailureOnce(e.getMessage());
        }
    }

    private void logFailureOnce(String why) {
        if (failureLogged) return;
        failureLogged = true;
        log.warn("RESP TLS: changed certificate files do not load ({}); new connections keep the previous ones", why);
    }

    private static SslContext build(Certificates files) {
        try {
            SslContextBuilder b = SslContextBuilder.forServer(files.cert().toFile(), files.key().toFile())
                    .sslProvider(SslProvider.JDK).protocols("TLSv1.3", "TLSv1.2");
            if (files.ca() != null) b.trustManager(files.ca().toFile()).clientAuth(files.authClients() ? ClientAuth.REQUIRE : ClientAuth.OPTIONAL);
            return b.build();
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("TLS certificate " + files.cert() + " with key " + files.key()
                    + (files.ca() == null ? "" : " and CA " + files.ca()) + " does not load: " + e.getMessage(), e);
        }
    }

    /** The files' sizes and modification times: what tells a changed certificate. */
    private static String stamp(Certificates files) {
        StringBuilder s = new StringBuilder();
        for (Path p : files.ca() == null ? new Path[] {files.cert(), files.key()} : new Path[] {files.cert(), files.key(), files.ca()}) {
            try {
                s.append(Files.size(p)).append('@').append(Files.getLastModifiedTime(p).toMillis()).append(';');
            } catch (IOException e) {
                throw new IllegalArgumentException("TLS file " + p + " cannot be read: " + e.getMessage());
            }
        }
        return s.toString();
    }
}
