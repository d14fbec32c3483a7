package io.cairn.archive;

/** The kinds of object-store calls, for per-kind counters (a metric label later). */
public enum StoreOperation {
    PUT, GET, HEAD, COPY, DELETE, LIST
}
