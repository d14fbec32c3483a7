package io.cairn.archive;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;

/**
 * Puts every call of an {@link ObjectStore} through the process's {@link StoreThrottle} and counts
 * calls per kind and bytes each way. Uploads are charged their length before they start; downloads
 * are charged as the caller reads, so a restore that reads slowly is not charged up front and one
 * that stops early is not charged for the rest. A server-side copy is charged as a call only: its
 * bytes never reach this process (that is the point of it).
 */
public final class ThrottledObjectStore implements ObjectStore {
    private final ObjectStore delegate;
    private final StoreThrottle throttle;
    private final Map<StoreOperation, LongAdder> calls = new EnumMap<>(StoreOperation.class);
    private final LongAdder bytesWritten = new LongAdder();
    private final LongAdder bytesRead = new LongAdder();

    public ThrottledObjectStore(ObjectStore delegate, StoreThrottle throttle) {
        this.delegate = delegate;
        this.throttle = throttle;
        for (StoreOperation op : StoreOperation.values()) calls.put(op, new LongAdder());
    }

    public long calls(StoreOperation op) {
        return calls.get(op).sum();
    }

    public long bytesWritten() {
        return bytesWritten.sum();
    }

    public long bytesRead() {
        return bytesRead.sum();
    }

    public StoreThrottle throttle() {
        return throttle;
    }

    private void call(StoreOperation op, long uploadBytes) {
        throttle.acquire(1, uploadBytes);
        calls.get(op).increment();
    }

    @Override
    public void put(String key, ObjectBody body, Map<String, String> metadata) {
        call(StoreOperation.PUT, body.lengthBytes());
        delegate.put(key, body, metadata);
        bytesWritten.add(body.lengthBytes());
    }

    @Override
    public boolean putIfAbsent(String key, ObjectBody body, Map<String, String> metadata) {
        call(StoreOperation.PUT, body.lengthBytes());
        boolean written = delegate.putIfAbsent(key, body, metadata);
        bytesWritten.add(body.lengthBytes()); // sent either way: the store refuses after the body
        return written;
    }

    @Override
    public InputStream get(String key) {
        call(StoreOperation.GET, 0);
        return new ChargedInputStream(delegate.get(key));
    }

    @Override
    public InputStream get(String key, long offsetBytes, long lengthBytes) {
        call(StoreOperation.GET, 0);
        return new ChargedInputStream(delegate.get(key, offsetBytes, lengthBytes));
    }

    @Override
    public Optional<ObjectInfo> head(String key) {
        call(StoreOperation.HEAD, 0);
        return delegate.head(key);
    }

    @Override
    public void copy(String sourceKey, String destinationKey) {
        call(StoreOperation.COPY, 0);
        delegate.copy(sourceKey, destinationKey);
    }

    @Override
    public void delete(String key) {
        call(StoreOperation.DELETE, 0);
        delegate.delete(key);
    }

    @Override
    public ObjectPage list(String prefix, String pageToken, int maxKeys) {
        call(StoreOperation.LIST, 0);
        return delegate.list(prefix, pageToken, maxKeys);
    }

    @Override
    public void close() {
        delegate.close();
    }

    /** Charges bytes to the throttle as they are read. */
    private final class ChargedInputStream extends FilterInputStream {
        ChargedInputStream(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) charge(1);
            return b;
        }

        @Override
        public int read(byte[] buffer, int off, int len) throws IOException {
            int n = super.read(buffer, off, len);
            if (n > 0) charge(n);
            return n;
        }

        private void charge(long n) {
            bytesRead.add(n);
            throttle.acquire(0, n);
        }
    }
}
