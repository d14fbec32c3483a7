package io.cairn.replication.microraft;

import io.cairn.replication.ReplicaStateMachine;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A state machine for tests whose state is its history: index -> "term command" of every applied
 * entry, appended to {@code applied.log} in its folder (unforced, as Cairn's state machine writes),
 * so that a restarted member starts from what it wrote. An entry applied twice, or out of order, is
 * counted in {@link #reapplied()}. A checkpoint writes the history and a padding file of
 * {@link #PADDING_BYTES} whose content depends on the index, which a restore checks, so a snapshot
 * arrives in several pieces and a piece out of place fails loudly.
 */
final class RecordingStateMachine implements ReplicaStateMachine {
    private String lastQueryThread;
    static final int PADDING_BYTES = (5 << 20) / 2; // 2.5 MiB: three pieces

    private final Path dir;
    private final TreeMap<Long, String> history = new TreeMap<>();
    private volatile long appliedIndex;
    private volatile int reapplied;
    private volatile int restores;

    RecordingStateMachine(Path dir) {
        this.dir = dir;
        try {
            Files.createDirectories(dir);
            Path log = dir.resolve("applied.log");
            if (Files.exists(log)) {
                for (String line : Files.readAllLines(log)) {
                    int space = line.indexOf(' ');
                    history.put(Long.parseLong(line.substring(0, space)), line.substring(space + 1));
                }
            }
            appliedIndex = history.isEmpty() ? 0 : history.lastKey();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public synchronized byte[] apply(long index, long term, ByteBuffer command) {
        if (index <= appliedIndex) reapplied++;
        String entry = term + " " + StandardCharsets.UTF_8.decode(command);
        history.put(index, entry);
        appliedIndex = index;
        append(index + " " + entry + "\n");
        return ("applied:" + index).getBytes(StandardCharsets.UTF_8);
    }

    /** The thread the latest query ran on. */
    synchronized String lastQueryThread() {
        return lastQueryThread;
    }

    /** A query names a command; the answer is the index it was applied at, or "none". */
    @Override
    public synchronized byte[] query(ByteBuffer query) {
        lastQueryThread = Thread.currentThread().getName();
        String wanted = StandardCharsets.UTF_8.decode(query).toString();
        for (Map.Entry<Long, String> e : history.entrySet()) {
            if (e.getValue().endsWith(" " + wanted)) return Long.toString(e.getKey()).getBytes(StandardCharsets.UTF_8);
        }
        return "none".getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public long appliedIndex() {
        return appliedIndex;
    }

    @Override
    public synchronized List<Path> checkpoint(Path target, long index) throws IOException {
        StringBuilder b = new StringBuilder();
        history.forEach((i, e) -> b.append(i).append(' ').append(e).append('\n'));
        Files.writeString(target.resolve("history"), b);
        Files.createDirectories(target.resolve("extra"));
        Files.write(target.resolve("extra/padding"), padding(history.isEmpty() ? 0 : history.lastKey()));
        return List.of(Path.of("history"), Path.of("extra/padding"));
    }

    @Override
    public synchronized void restore(Path source, long index) throws IOException {
        List<String> lines = Files.readAllLines(source.resolve("history"));
        TreeMap<Long, String> restored = new TreeMap<>();
        for (String line : lines) {
            int space = line.indexOf(' ');
            restored.put(Long.parseLong(line.substring(0, space)), line.substring(space + 1));
        }
        long last = restored.isEmpty() ? 0 : restored.lastKey();
        if (!java.util.Arrays.equals(Files.readAllBytes(source.resolve("extra/padding")), padding(last))) {
            throw new IOException("padding of the snapshot at " + index + " is not what was written");
        }
        history.clear();
        history.putAll(restored);
        appliedIndex = index;
        StringBuilder b = new StringBuilder();
        history.forEach((i, e) -> b.append(i).append(' ').append(e).append('\n'));
        Files.writeString(dir.resolve("applied.log"), b);
        restores++;
    }

    synchronized TreeMap<Long, String> history() {
        return new TreeMap<>(history);
    }

    /** The commands applied, in log order. */
    synchronized List<String> commands() {
        List<String> commands = new ArrayList<>();
        for (String e : history.values()) commands.add(e.substring(e.indexOf(' ') + 1));
        return commands;
    }

    int reapplied() {
        return reapplied;
    }

    int restores() {
        return restores;
    }

    private void append(String line) {
        try {
            Files.writeString(dir.resolve("applied.log"), line, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] padding(long index) {
        byte[] b = new byte[PADDING_BYTES];
        for (int i = 0; i < b.length; i++) b[i] = (byte) (i * 31 + index);
        return b;
    }
}
