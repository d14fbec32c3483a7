package io.cairn.router;

import io.cairn.core.wire.DataPlane;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** One blocking connection; answers arrive in order here because each call waits for its answer. */
final class RawConnection implements AutoCloseable {
    private final Socket socket;
    private final DataOutputStream out;
    private final DataInputStream in;

    RawConnection(String endpoint) throws IOException {
        int colon = endpoint.lastIndexOf(':');
        socket = new Socket(endpoint.substring(0, colon), Integer.parseInt(endpoint.substring(colon + 1)));
        socket.setSoTimeout((int) TimeUnit.SECONDS.toMillis(20));
        out = new DataOutputStream(new java.io.BufferedOutputStream(socket.getOutputStream()));
        in = new DataInputStream(new java.io.BufferedInputStream(socket.getInputStream()));
    }

    DataPlane.Response call(long callId, UUID client, byte type, byte[] message) throws IOException {
        send(callId, client, type, message);
        out.flush();
        return response(callId);
    }

    /** Writes a request without waiting for its answer (buffered: {@link #flush} sends what was written). */
    void send(long callId, UUID client, byte type, byte[] message) throws IOException {
        out.writeInt(DataPlane.REQUEST_HEADER_BYTES + message.length);
        out.writeLong(callId);
        out.writeLong(client.getMostSignificantBits());
        out.writeLong(client.getLeastSignificantBits());
        out.writeByte(type);
        out.write(message);
    }

    void flush() throws IOException {
        out.flush();
    }

    /** The next answer, whichever call it is for. */
    DataPlane.Response next() throws IOException {
        byte[] frame = new byte[in.readInt()];
        in.readFully(frame);
        return DataPlane.decodeResponse(ByteBuffer.wrap(frame));
    }

    DataPlane.Response staleRead(long callId, UUID client, long minIndex, byte[] read) throws IOException {
        out.writeInt(DataPlane.REQUEST_HEADER_BYTES + DataPlane.MIN_INDEX_BYTES + read.length);
        out.writeLong(callId);
        out.writeLong(client.getMostSignificantBits());
        out.writeLong(client.getLeastSignificantBits());
        out.writeByte(DataPlane.STALE_READ);
        out.writeLong(minIndex);
        out.write(read);
        out.flush();
        return response(callId);
    }

    private DataPlane.Response response(long callId) throws IOException {
        DataPlane.Response r = next();
        assertThat(r.callId()).isEqualTo(callId);
        return r;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
