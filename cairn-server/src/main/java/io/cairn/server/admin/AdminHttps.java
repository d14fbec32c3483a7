package io.cairn.server.admin;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.cairn.core.tls.ClusterTls;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The admin ports over HTTPS when the cluster has internal TLS (issue 26 item 2, {@link ClusterTls}):
 * servers speak HTTPS with this process's certificate and, unless {@code security.internalTls.adminClientCerts}
 * is false, require a client certificate of the cluster CA (so another CA's process or a client with
 * none is refused at the handshake); the CLI and processes calling each other's admin ports use
 * {@code https://} and present their own certificate. Without internal TLS everything stays plain HTTP.
 */
public final class AdminHttps {
    private static volatile boolean clientCertificates = true;
    /** One client per connect timeout and TLS setting: HttpClient keeps connections, so it is made once. */
    private static final Map<Duration, Client> CLIENTS = new ConcurrentHashMap<>();

    private record Client(ClusterTls tls, HttpClient http) {}

    private AdminHttps() {}

    /** false: admin servers ask for no client certificate (browsers, Prometheus without one); the token still guards changes. */
    public static void requireClientCertificates(boolean required) {
        clientCertificates = required;
    }

    /** {@code https://host:port} with internal TLS, else {@code http://host:port}. */
    public static String base(String host, int port) {
        return (ClusterTls.current() == null ? "http" : "https") + "://" + host + ":" + port;
    }

    /** An HTTP client for admin ports: with internal TLS it trusts the cluster CA and presents this process's certificate. */
    public static HttpClient client(Duration connectTimeout) {
        ClusterTls tls = ClusterTls.current();
        Client c = CLIENTS.get(connectTimeout);
        if (c != null && c.tls() == tls) return c.http();
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(connectTimeout).version(HttpClient.Version.HTTP_1_1);
        if (tls != null) b.sslContext(tls.context()).sslParameters(tls.parameters(false));
        HttpClient http = b.build();
        CLIENTS.put(connectTimeout, new Client(tls, http));
        return http;
    }

    /** A server on {@code address}: HTTPS with internal TLS, plain HTTP without. */
    static HttpServer newServer(InetSocketAddress address, int backlog) throws IOException {
        ClusterTls tls = ClusterTls.current();
        if (tls == null) return HttpServer.create(address, backlog);
        HttpsServer https = HttpsServer.create(address, backlog);
        boolean requireClient = clientCertificates;
        https.setHttpsConfigurator(new HttpsConfigurator(tls.context()) {
            @Override
            public void configure(HttpsParameters params) {
                params.setSSLParameters(tls.parameters(requireClient));
            }
        });
        return https;
    }
}
