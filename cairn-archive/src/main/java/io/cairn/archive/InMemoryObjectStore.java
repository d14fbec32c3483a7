package io.cairn.archive;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * An {@link ObjectStore} in memory, for the deterministic simulator and unit tests: the same
 * contract as the folder and S3 stores ({@code ObjectStoreContract}), a clock the caller injects
 * (last-modified times), and no threads. One lock makes each call atomic, as an object store's
 * single-key operations are.
 */
public final class InMemoryObjectStore implements ObjectStore {
    private record Stored(byte[] bytes, Map<String, String> metadata, long lastModifiedMs) {}

    private final TreeMap<String, Stored> objects = new TreeMap<>();
    private final LongSupplier clockMs;

    public InMemoryObjectStore(LongSupplier clockMs) {
        this.clockMs = clockMs;
    }

    /** A store on the system clock. */
    public InMemoryObjectStore() {
        this(System::currentTimeMillis);
    }

    private static byte[] read(ObjectBody body) {
        try (InputStream in = body.open()) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("reading an object body", e);
        }
    }

    @Override
    public synchronized void put(String key, ObjectBody body, Map<String, String> metadata) {
        objects.put(ObjectKeys.checkKey(key), new Stored(read(body), ObjectKeys.checkMetadata(metadata), clockMs.getAsLong()));
    }

    @Override
    public synchronized boolean putIfAbsent(String key, ObjectBody body, Map<String, String> metadata) {
        ObjectKeys.checkKey(key);
        Map<String, String> checked = ObjectKeys.checkMetadata(metadata);
        if (objects.containsKey(key)) return false;
        objects.put(key, new Stored(read(body), checked, clockMs.getAsLong()));
        return true;
    }

    @Override
    public InputStream get(String key) {
        return new ByteArrayInputStream(stored(key).bytes());
    }

    @Override
    public InputStream get(String key, long offsetBytes, long lengthBytes) {
        if (offsetBytes < 0 || lengthBytes < 0) throw ObjectKeys.refused("a range needs a non-negative offset and length");
        byte[] b = stored(key).bytes();
        int from = (int) Math.min(offsetBytes, b.length);
        int length = (int) Math.min(lengthBytes, b.length - from);
        return new ByteArrayInputStream(b, from, length);
    }

    private synchronized Stored stored(String key) {
        Stored s = objects.get(ObjectKeys.checkKey(key));
        if (s == null) throw ObjectKeys.notFound(key);
        return s;
    }

    @Override
    public synchronized Optional<ObjectInfo> head(String key) {
        Stored s = objects.get(ObjectKeys.checkKey(key));
        return s == null ? Optional.empty() : Optional.of(new ObjectInfo(key, s.bytes().length, s.metadata(), s.lastModifiedMs()));
    }

    @Override
    public synchronized void copy(String sourceKey, String destinationKey) {
        Stored s = objects.get(ObjectKeys.checkKey(sourceKey));
        if (s == null) throw ObjectKeys.notFound(sourceKey);
        objects.put(ObjectKeys.checkKey(destinationKey), new Stored(s.bytes(), s.metadata(), clockMs.getAsLong()));
    }

    @Override
    public synchronized void delete(String key) {
        objects.remove(ObjectKeys.checkKey(key));
    }

    @Override
    public synchronized ObjectPage list(String prefix, String pageToken, int maxKeys) {
        String p = ObjectKeys.checkPrefix(prefix);
        ObjectKeys.checkPageSize(maxKeys);
        List<ObjectInfo> page = new ArrayList<>();
        boolean afterToken = pageToken != null && pageToken.compareTo(p) >= 0;
        var tail = afterToken ? objects.tailMap(pageToken, false) : objects.tailMap(p, true);
        for (Map.Entry<String, Stored> e : tail.entrySet()) {
            if (!e.getKey().startsWith(p)) break;
            if (page.size() == maxKeys) return new ObjectPage(page, Optional.of(page.get(page.size() - 1).key()));
            page.add(new ObjectInfo(e.getKey(), e.getValue().bytes().length, Map.of(), e.getValue().lastModifiedMs()));
        }
        return new ObjectPage(page, Optional.empty());
    }

    /** Every key, for a simulator's invariants. */
    public synchronized List<String> keys() {
        return List.copyOf(objects.keySet());
    }

    @Override
    public void close() {
        // nothing held
    }
}
