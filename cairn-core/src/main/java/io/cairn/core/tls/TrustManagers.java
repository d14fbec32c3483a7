package io.cairn.core.tls;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;
import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.function.Supplier;

/**
 * The trust manager of {@link ClusterTls}: a peer is trusted when its chain leads to the cluster CA
 * (PKIX, the newest CA file that loaded). The socket and engine variants deliberately call the plain
 * ones, which compare no host names: membership is the CA's signature ({@link ClusterTls}).
 */
final class TrustManagers {
    private TrustManagers() {}

    static final class CaOnly extends X509ExtendedTrustManager {
        private final Supplier<ClusterTls.Material> material;

        CaOnly(Supplier<ClusterTls.Material> material) {
            this.material = material;
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            material.get().trust().checkClientTrusted(chain, authType);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            material.get().trust().checkServerTrusted(chain, authType);
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return material.get().trust().getAcceptedIssuers();
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
            checkClientTrusted(chain, authType);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
            checkServerTrusted(chain, authType);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
            checkClientTrusted(chain, authType);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
            checkServerTrusted(chain, authType);
        }
    }
}
