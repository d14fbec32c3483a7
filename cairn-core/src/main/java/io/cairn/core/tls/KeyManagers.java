package io.cairn.core.tls;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.function.Supplier;

/** The key manager of {@link ClusterTls}: one alias whose key and chain are the newest files that loaded. */
final class KeyManagers {
    static final String ALIAS = "cairn";

    private KeyManagers() {}

    static final class Reloading extends X509ExtendedKeyManager {
        private final Supplier<ClusterTls.Material> material;

        Reloading(Supplier<ClusterTls.Material> material) {
            this.material = material;
        }

        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
            return material.get().keys().getClientAliases(keyType, issuers);
        }

        @Override
        public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
            return material.get().keys().chooseClientAlias(keyType, issuers, socket);
        }

        @Override
        public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
            return material.get().keys().chooseClientAlias(keyType, issuers, null);
        }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
            return material.get().keys().getServerAliases(keyType, issuers);
        }

        @Override
        public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
            return material.get().keys().chooseServerAlias(keyType, issuers, socket);
        }

        @Override
        public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
            return material.get().keys().chooseServerAlias(keyType, issuers, null);
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            return material.get().keys().getCertificateChain(alias);
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            return material.get().keys().getPrivateKey(alias);
        }
    }
}
