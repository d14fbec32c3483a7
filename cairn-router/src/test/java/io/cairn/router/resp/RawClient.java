package io.cairn.router.resp;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A bare socket speaking RESP, for sending exactly the bytes a test wants (malformed ones
 * included) and reading replies verbatim. Replies: simple string -> String, error ->
 * {@link Err}, integer -> Long, bulk -> String or null, array -> List.
 */
final class RawClient implements AutoCloseable {
    record Err(String message) {}

    private static final int READ_TIMEOUT_MS = 10_000;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    RawClient(int port) {
        try {
            socket = new Socket("127.0.0.1", port);
            socket.setSoTimeout(READ_TIMEOUT_MS);
            in = new BufferedInputStream(socket.getInputStream());
            out = socket.getOutputStream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static byte[] encode(String... args) {
        StringBuilder s = new StringBuilder("*").append(args.length).append("\r\n");
        for (String arg : args) {
            s.append('$').append(arg.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(arg).append("\r\n");
        }
        return s.toString().getBytes(StandardCharsets.UTF_8);
    }

    RawClient send(String raw) {
        return send(raw.getBytes(StandardCharsets.UTF_8));
    }

    RawClient send(byte[] raw) {
        try {
            out.write(raw);
            out.flush();
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    RawClient command(String... args) {
        return send(encode(args));
    }

    /** Sends one command and reads its reply. */
    Object call(String... args) {
        return command(args).read();
    }

    Object read() {
        try {
            int type = in.read();
            if (type < 0) throw new EOFException("server closed the connection");
            String line = readLine();
            return switch (type) {
                case '+' -> line;
                case '-' -> new Err(line);
                case ':' -> Long.parseLong(line);
                case '$' -> readBulk(Integer.parseInt(line));
                case '*' -> readArray(Integer.parseInt(line));
                default -> throw new IllegalStateException("unexpected reply type " + (char) type + line);
            };
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** True when the server closed the connection (EOF or reset) before sending more. */
    boolean closedByServer() {
        try {
            return in.read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (SocketException e) {
            return true; // connection reset: closed with our unread bytes in its buffer
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads and drops what the server sent until it closes; false if it is still open after the read timeout. */
    boolean readsToEndOfStream() {
        byte[] sink = new byte[64 << 10];
        try {
            while (in.read(sink) >= 0) {
                // replies the client never read
            }
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (SocketException e) {
            return true; // reset: closed with our unread bytes in its buffer
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String readBulk(int length) throws IOException {
        if (length < 0) return null;
        byte[] data = in.readNBytes(length + 2);
        if (data.length < length + 2) throw new EOFException("truncated bulk");
        return new String(data, 0, length, StandardCharsets.UTF_8);
    }

    private List<Object> readArray(int length) {
        if (length < 0) return null;
        List<Object> items = new ArrayList<>(length);
        for (int i = 0; i < length; i++) items.add(read());
        return items;
    }

    private String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != '\r') {
            if (b < 0) throw new EOFException("truncated line");
            line.write(b);
        }
        if (in.read() != '\n') throw new IllegalStateException("CR without LF");
        return line.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
