package io.cairn.server;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal RESP2 client for comparing replies exactly: it keeps what client libraries blur
 * (a nil bulk "$-1" versus a nil array "*-1", a status versus a bulk string, error texts).
 * A reply reads as text: "+OK", "-ERR ...", ":3", "$abc", "$nil", "*nil", or "[a, b]" for arrays.
 */
final class RawResp implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    RawResp(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(30_000);
        in = new BufferedInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    Object call(String... args) throws IOException {
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.write(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (String a : args) {
            byte[] bytes = a.getBytes(StandardCharsets.UTF_8);
            request.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            request.write(bytes);
            request.write("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        out.write(request.toByteArray());
        out.flush();
        return read();
    }

    private Object read() throws IOException {
        int type = in.read();
        String line = line();
        return switch (type) {
            case '+', '-', ':' -> (char) type + line;
            case '$' -> {
                int n = Integer.parseInt(line);
                if (n < 0) yield "$nil";
                byte[] bytes = in.readNBytes(n + 2);
                yield "$" + new String(bytes, 0, n, StandardCharsets.UTF_8);
            }
            case '*' -> {
                int n = Integer.parseInt(line);
                if (n < 0) yield "*nil";
                List<Object> items = new ArrayList<>(n);
                for (int i = 0; i < n; i++) items.add(read());
                yield items;
            }
            default -> throw new IOException("unexpected reply type " + type + " " + line);
        };
    }

    private String line() throws IOException {
        StringBuilder sb = new StringBuilder();
        for (int c = in.read(); c != '\r'; c = in.read()) {
            if (c < 0) throw new IOException("connection closed");
            sb.append((char) c);
        }
        in.read();
        return sb.toString();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
