package io.cairn.client;

import io.cairn.core.wire.DataPlane;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The data-plane listeners of this JVM, by the endpoint ("host:port") they publish. A router in
 * the same process as a storage member (a local cluster, or an application embedding both)
 * exchanges {@link DataPlane} requests and responses with it as calls instead of frames on a
 * loopback socket: same call ids, statuses and retry rules, minus four system calls and two TCP
 * transmissions per request, which were most of a small GET's CPU (docs/benchmarks.md, stop 16).
 *
 * <p>{@code -Dcairn.dataPlane.inProcess=false} makes routers use the socket anyway (the router's
 * own tests do, to keep that path covered; also for A/B benchmarks).
 */
public final class InProcessDataPlane {
    public static final String PROPERTY = "cairn.dataPlane.inProcess";

    /** A storage member's side: opens a session per router connection. */
    public interface Listener {
        /**
         * @param responses where this session's responses go, on whatever thread produced them
         * @param closed    run once when the listener closes the session (the member stopped)
         */
        Session open(Consumer<DataPlane.Response> responses, Runnable closed);
    }

    /** One router connection to one member. */
    public interface Session {
        /** Submits one request (a WRITE, READ or MEMBERSHIP) sent at topology {@code epoch} (0: none); its response comes through the session's consumer. */
        void send(long callId, UUID clientId, byte type, long epoch, byte[] message);

        /** Submits one {@link DataPlane#STALE_READ} of {@code read} (a READ message) once {@code minIndex} is applied. */
        void staleRead(long callId, UUID clientId, long epoch, long minIndex, byte[] read);

        /** The router closes its side; no response comes afterwards. */
        void close();
    }

    private static final Map<String, Listener> LISTENERS = new ConcurrentHashMap<>();

    private InProcessDataPlane() {}

    public static void register(String endpoint, Listener listener) {
        LISTENERS.put(endpoint, listener);
    }

    public static void unregister(String endpoint, Listener listener) {
        LISTENERS.remove(endpoint, listener);
    }

    /** The listener publishing {@code endpoint} in this JVM, or null (another process, or turned off). */
    public static Listener find(String endpoint) {
        if (!Boolean.parseBoolean(System.getProperty(PROPERTY, "true"))) return null;
        return LISTENERS.get(endpoint);
    }
}
