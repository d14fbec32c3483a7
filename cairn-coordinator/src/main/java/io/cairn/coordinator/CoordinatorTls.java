package io.cairn.coordinator;

import io.cairn.core.tls.ClusterTls;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;

/**
 * Cluster TLS (issue 26) for Ratis's gRPC, servers and clients alike: mutual TLS with this process's
 * certificate and the cluster CA ({@link ClusterTls}), through managers that follow renewed files.
 * The coordinator does not depend on cairn-client, whose RatisTls does the same for storage groups.
 */
final class CoordinatorTls {
    private CoordinatorTls() {}

    /** Parameters for a Ratis server or client builder: TLS when the cluster has it, empty for plain TCP. */
    static Parameters parameters() {
        Parameters p = new Parameters();
        ClusterTls tls = ClusterTls.current();
        if (tls == null) return p;
        GrpcTlsConfig conf = new GrpcTlsConfig(tls.keyManager(), tls.trustManager(), true);
        GrpcConfigKeys.TLS.setConf(p, conf);
        GrpcConfigKeys.Server.setTlsConf(p, conf);
        GrpcConfigKeys.Client.setTlsConf(p, conf);
        GrpcConfigKeys.Admin.setTlsConf(p, conf);
        return p;
    }
}
