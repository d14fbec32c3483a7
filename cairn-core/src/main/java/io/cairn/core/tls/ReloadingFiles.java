package io.cairn.core.tls;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * Something built from files (TLS certificates and keys) that is rebuilt when the files change, with no
 * restart: {@link #current()} looks at the files' sizes and modification times at most once a second
 * and, when they changed, builds anew. A change that does not build (a half-copied file, a key that no
 * longer matches its certificate) keeps the previous value and is reported once until the files build
 * again, so a bad renewal never takes a running process off the network.
 *
 * <p>Shared by the RESP port's TLS (RespTls) and the cluster-internal TLS ({@link ClusterTls}).
 */
public final class ReloadingFiles<T> {
    private static final long CHECK_EVERY_NANOS = 1_000_000_000L;

    /** What happened, for the owner to log in its own words. */
    public interface Events {
        void reloaded(Path first);

        void failed(String why);
    }

    private final List<Path> files;
    private final Function<List<Path>, T> build;
    private final LongSupplier nanoClock;
    private final Events events;
    private volatile T value;
    private volatile String loadedStamp;
    private volatile long checkedNanos;
    private volatile boolean failureReported;

    /** @throws IllegalArgumentException from {@code build}, or naming the file that cannot be read */
    public ReloadingFiles(List<Path> files, Function<List<Path>, T> build, LongSupplier nanoClock, Events events) {
        this.files = List.copyOf(files);
        this.build = build;
        this.nanoClock = nanoClock;
        this.events = events;
        this.loadedStamp = stamp(this.files);
        this.value = build.apply(this.files);
        this.checkedNanos = nanoClock.getAsLong();
    }

    /** Logs nothing: for owners that report through their own means. */
    public static Events quiet(Consumer<String> failed) {
        return new Events() {
            @Override
            public void reloaded(Path first) {}

            @Override
            public void failed(String why) {
                failed.accept(why);
            }
        };
    }

    /** The newest value that built; checks the files first when a second has passed. */
    public T current() {
        long now = nanoClock.getAsLong();
        if (now - checkedNanos >= CHECK_EVERY_NANOS) {
            checkedNanos = now;
            reloadIfChanged();
        }
        return value;
    }

    private void reloadIfChanged() {
        try {
            String stamp = stamp(files);
            if (stamp.equals(loadedStamp)) return;
            value = build.apply(files);
            loadedStamp = stamp;
            failureReported = false;
            events.reloaded(files.get(0));
        } catch (IllegalArgumentException e) {
            if (failureReported) return;
            failureReported = true;
            events.failed(e.getMessage());
        }
    }

    /** The files' sizes and modification times: what tells a changed file. */
    static String stamp(List<Path> files) {
        StringBuilder s = new StringBuilder();
        for (Path p : files) {
            try {
                s.append(Files.size(p)).append('@').append(Files.getLastModifiedTime(p).toMillis()).append(';');
            } catch (NoSuchFileException e) {
                throw new IllegalArgumentException("TLS file " + p + " does not exist");
            } catch (IOException e) {
                throw new IllegalArgumentException("TLS file " + p + " cannot be read: " + e);
            }
        }
        return s.toString();
    }
}
