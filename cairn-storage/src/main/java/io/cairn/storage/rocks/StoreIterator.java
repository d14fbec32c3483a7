package io.cairn.storage.rocks;

import org.rocksdb.RocksIterator;

/**
 * An iterator over one column family of a {@link RocksStore}, usable while the store may be closed
 * under it (a member installing a snapshot closes its database while other threads read): every
 * step runs inside the store's guard, so a step after the close fails with
 * {@link RocksStore.StorageFailure} instead of touching freed native memory. The store closes the
 * iterators still open when it closes; closing one again is a no-op. Not thread-safe, as RocksDB's.
 */
public final class StoreIterator implements AutoCloseable {
    private final RocksStore store;
    private final RocksIterator it;
    private boolean closed;

    StoreIterator(RocksStore store, RocksIterator it) {
        this.store = store;
        this.it = it;
    }

    public boolean isValid() {
        store.enter();
        try {
            return it.isValid();
        } finally {
            store.exit();
        }
    }

    public void seek(byte[] target) {
        store.enter();
        try {
            it.seek(target);
        } finally {
            store.exit();
        }
    }

    public void seekForPrev(byte[] target) {
        store.enter();
        try {
            it.seekForPrev(target);
        } finally {
            store.exit();
        }
    }

    public void seekToFirst() {
        store.enter();
        try {
            it.seekToFirst();
        } finally {
            store.exit();
        }
    }

    public void next() {
        store.enter();
        try {
            it.next();
        } finally {
            store.exit();
        }
    }

    public void prev() {
        store.enter();
        try {
            it.prev();
        } finally {
            store.exit();
        }
    }

    public byte[] key() {
        store.enter();
        try {
            return it.key();
        } finally {
            store.exit();
        }
    }

    public byte[] value() {
        store.enter();
        try {
            return it.value();
        } finally {
            store.exit();
        }
    }

    @Override
    public void close() {
        if (store.forget(this)) closeNative();
    }

    /** Frees the native iterator (once): by {@link #close}, or by the store closing before it. */
    synchronized void closeNative() {
        if (closed) return;
        closed = true;
        it.close();
    }
}
