package io.cairn.router.resp;

import io.cairn.router.KvBackend;

/** A started {@link RespServer} on 127.0.0.1 and a free port, closed with the test. */
final class TestServer implements AutoCloseable {
    final RespServer server;

    TestServer(KvBackend backend, RespConfig.Builder config) {
        this(backend, config, RespAuth.open());
    }

    TestServer(KvBackend backend, RespConfig.Builder config, RespAuth auth) {
        server = new RespServer(backend, config.host("127.0.0.1").port(0).eventLoopThreads(2).build(), null, auth).start();
    }

    /** A server the test built and started itself (e.g. with TLS). */
    TestServer(RespServer started) {
        server = started;
    }

    TestServer(KvBackend backend) {
        this(backend, RespConfig.builder());
    }

    int port() {
        return server.port();
    }

    RawClient client() {
        return new RawClient(port());
    }

    @Override
    public void close() {
        server.close();
    }
}
