package io.cairn.server;

import io.cairn.core.tls.ClusterTls;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.security.cert.X509Certificate;

/**
 * One raw connection to a port, as an intruder or a member would open it: what the port did with it.
 * A refusal is the server's TLS alert or its closing the connection; an acceptance is a connection
 * still open, waiting for the first request, once the handshake is over.
 */
final class TlsProbe {
    enum Outcome { REFUSED, ACCEPTED }

    private TlsProbe() {}

    /**
     * Connects with {@code context} (presenting its key manager's certificate, if any) and reads:
     * a refused peer sees an alert or the end of the stream; an accepted one sees nothing until
     * {@code quietMs} pass (the servers wait for the client to speak first).
     */
    static Outcome handshake(SSLContext context, int port, int quietMs) throws IOException {
        try (SSLSocket s = (SSLSocket) context.getSocketFactory().createSocket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(quietMs);
            javax.net.ssl.SSLParameters p = s.getSSLParameters();
            p.setProtocols(new String[] {"TLSv1.3", "TLSv1.2"});
            p.setApplicationProtocols(new String[] {"h2"}); // the coordinators' gRPC closes connections that do not offer HTTP/2
            s.setSSLParameters(p);
            try {
                s.startHandshake();
                // TLS 1.3: the server checks the client's certificate after the client's side of the handshake is done
                return s.getInputStream().read() < 0 ? Outcome.REFUSED : Outcome.ACCEPTED;
            } catch (SocketTimeoutException quiet) {
                return Outcome.ACCEPTED;
            } catch (SSLException | SocketException refused) {
                return Outcome.REFUSED;
            }
        }
    }

    /** A process of the cluster: presents {@code tls}'s certificate. */
    static SSLContext member(ClusterTls tls) {
        return tls.context();
    }

    /** A client that trusts the cluster CA but has no certificate of its own. */
    static SSLContext withoutCertificate(ClusterTls tls) throws Exception {
        SSLContext c = SSLContext.getInstance("TLS");
        c.init(null, new javax.net.ssl.TrustManager[] {tls.trustManager()}, null);
        return c;
    }

    /** Plain TCP (a process of a cluster without TLS): sends bytes that are no TLS handshake; true when the port closed on them. */
    static boolean plainClosed(int port, int quietMs) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(quietMs);
            s.getOutputStream().write("not a TLS hello, a Raft frame of a plain cluster\r\n".repeat(4).getBytes());
            s.getOutputStream().flush();
            try {
                while (true) if (s.getInputStream().read() < 0) return true; // a TLS server may answer with an alert first
            } catch (SocketTimeoutException stillOpen) {
                return false;
            } catch (SocketException reset) {
                return true;
            }
        }
    }

    /** The serial of the certificate the port presents to a new member connection. */
    static BigInteger servedSerial(ClusterTls tls, int port) throws IOException {
        try (SSLSocket s = (SSLSocket) tls.context().getSocketFactory().createSocket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(10_000);
            s.startHandshake();
            return ((X509Certificate) s.getSession().getPeerCertificates()[0]).getSerialNumber();
        }
    }
}
