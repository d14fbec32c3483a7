package io.cairn.router.resp;

import io.cairn.core.tls.ReloadingFiles;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
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
 * is logged once, until the files load again ({@link ReloadingFiles}, shared with the cluster-internal TLS).
 */
public final class RespTls {
    private static final Logger log = LoggerFactory.getLogger(RespTls.class);

    /** The files; {@code ca} null for no client certificates. */
    public record Certificates(Path cert, Path key, Path ca, boolean authClients) {}

    private final ReloadingFiles<SslContext> context;

    private RespTls(ReloadingFiles<SslContext> context) {
        this.context = context;
    }

    /** @throws IllegalArgumentException naming the file that is missing or does not load */
    public static RespTls load(Certificates files) {
        return load(files, System::nanoTime);
    }

    static RespTls load(Certificates files, LongSupplier nanoClock) {
        List<Path> paths = files.ca() == null ? List.of(files.cert(), files.key()) : List.of(files.cert(), files.key(), files.ca());
        return new RespTls(new ReloadingFiles<>(paths, p -> build(files), nanoClock, new ReloadingFiles.Events() {
            @Override
            public void reloaded(Path first) {
                log.info("RESP TLS: certificates reloaded from {}", first);
            }

            @Override
            public void failed(String why) {
                log.warn("RESP TLS: changed certificate files do not load ({}); new connections keep the previous ones", why);
            }
        }));
    }

    /** A TLS handler for a new connection, from the newest certificates that load. */
    SslHandler newHandler(ByteBufAllocator alloc) {
        return context.current().newHandler(alloc);
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
}
