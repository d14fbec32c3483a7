package io.cairn.core;

/**
 * The one error catalogue. Codes are stable and never reused; add new ones at the end.
 * {@link #redisPrefix} is the first word of the RESP error reply a client sees.
 */
public enum ErrorCode {
    WRONG_BUCKET(1, RetryClass.REROUTE, "WRONGBUCKET", "bucket is not owned by this replicaset"),
    BUCKET_LOCKED(2, RetryClass.RETRY_LATER, "TRYAGAIN", "bucket is being moved; retry shortly"),
    NO_ROUTE(3, RetryClass.RETRY_LATER, "CLUSTERDOWN", "no replicaset is known to own the bucket yet"),
    NOT_LEADER(4, RetryClass.REROUTE, "TRYAGAIN", "node is not the replicaset leader"),
    TIMEOUT(5, RetryClass.FATAL, "TIMEOUT", "request deadline exceeded"),
    UNAVAILABLE(6, RetryClass.RETRY_LATER, "CLUSTERDOWN", "replicaset unavailable"),
    VALUE_TOO_LARGE(7, RetryClass.FATAL, "ERR", "value exceeds the configured maximum size"),
    NOT_INTEGER(8, RetryClass.FATAL, "ERR", "value is not an integer or out of range"),
    SYNTAX(9, RetryClass.FATAL, "ERR", "syntax error"),
    WRONG_ARITY(10, RetryClass.FATAL, "ERR", "wrong number of arguments"),
    UNKNOWN_COMMAND(11, RetryClass.FATAL, "ERR", "unknown command"),
    PROTOCOL(12, RetryClass.FATAL, "ERR", "protocol error"),
    ILLEGAL_TRANSITION(13, RetryClass.FATAL, "ERR", "illegal bucket state transition"),
    INVALID_CONFIG(14, RetryClass.FATAL, "ERR", "invalid configuration"),
    UNKNOWN_NODE(15, RetryClass.FATAL, "ERR", "node is not in the topology"),
    STALE_EPOCH(16, RetryClass.REFRESH_TOPOLOGY, "TRYAGAIN", "topology epoch is stale"),
    GUARDRAIL(17, RetryClass.FATAL, "ERR", "topology change refused by a guardrail"),
    BUCKET_READONLY(18, RetryClass.FATAL, "READONLY", "bucket is a contained doubled copy and refuses writes"),
    KEY_TOO_LARGE(19, RetryClass.FATAL, "ERR", "key exceeds the configured maximum size"),
    INVALID_EXPIRE(20, RetryClass.FATAL, "ERR", "invalid expire time"),
    INTERNAL(21, RetryClass.FATAL, "ERR", "internal error"),
    FOLDER_IN_USE(22, RetryClass.FATAL, "ERR", "data folder is used by another running process"),
    /** A storage ref (map-reduce) was refused: a bucket is in transfer here, or a move is waiting for its turn. */
    MOVE_IN_PROGRESS(23, RetryClass.RETRY_LATER, "TRYAGAIN", "a bucket move is in progress on the replicaset; retry shortly"),
    /** A map-reduce step found its storage ref gone (expired or never taken); the whole call must start over. */
    REF_NOT_HELD(24, RetryClass.RETRY_LATER, "TRYAGAIN", "the storage ref of this map-reduce call is not held"),
    /** KEYS matched more keys than one reply may carry. */
    TOO_MANY_KEYS(25, RetryClass.FATAL, "ERR", "too many keys match; use SCAN"),
    /** A port the configuration gives a process is taken by another one. */
    PORT_IN_USE(26, RetryClass.FATAL, "ERR", "a configured port is in use by another process"),
    /**
     * A follower read was refused by the member asked: it has not applied the router's last write, or
     * has not heard from its leader (or, leading, from a majority) within the bound. The router asks the leader.
     */
    STALE_READ(27, RetryClass.REROUTE, "TRYAGAIN", "the member is too far behind its leader to answer a follower read; ask the leader"),
    /** A storage node was started on the data folder of another node or replicaset (issue 21, {@code IDENTITY} file). */
    FOREIGN_FOLDER(28, RetryClass.FATAL, "ERR", "the data folder belongs to another node or replicaset"),
    /**
     * A router's queue of operations waiting for a replicaset (group commit) is full: the replicaset
     * is slower than the clients. Nothing was applied; the router does not retry it itself (that
     * would hold the load it sheds), the client retries later (issue 28).
     */
    QUEUE_FULL(29, RetryClass.RETRY_LATER, "TRYAGAIN", "the router's queue to the replicaset is full; retry shortly"),
    /** The archive tier asked the object store for an object that is not there (issue 23). */
    OBJECT_NOT_FOUND(30, RetryClass.FATAL, "ERR", "the object is not in the object store"),
    /** The object store did not answer or answered with a server error (5xx, timeout, connection refused). */
    OBJECT_STORE_UNAVAILABLE(31, RetryClass.RETRY_LATER, "TRYAGAIN", "the object store is unavailable; retry shortly"),
    /** The object store refused the request for good: credentials, permissions, a missing store bucket, a bad key. */
    OBJECT_STORE_REFUSED(32, RetryClass.FATAL, "ERR", "the object store refused the request (credentials, permissions, bucket or key)"),
    /** A bucket archive object failed verification: size, counts or content hash differ from what was recorded. */
    ARCHIVE_CORRUPT(33, RetryClass.FATAL, "ERR", "the bucket archive object failed verification"),
    /** A command of one data type on a key holding another (Redis's exact text, issue 24). */
    WRONG_TYPE(34, RetryClass.FATAL, "WRONGTYPE", "Operation against a key holding the wrong kind of value"),
    /** A float argument or stored value that does not parse (HINCRBYFLOAT); the message says which. */
    NOT_FLOAT(35, RetryClass.FATAL, "ERR", "value is not a valid float"),
    /** A command that needs an existing key found none (LSET; Redis's text). */
    NO_SUCH_KEY(36, RetryClass.FATAL, "ERR", "no such key"),
    /** An index beyond the end of a list (LSET; Redis's text). */
    INDEX_OUT_OF_RANGE(37, RetryClass.FATAL, "ERR", "index out of range"),
    /**
     * A command on several keys whose keys are in different buckets: it would not be atomic, so it is
     * refused as Redis Cluster refuses keys of different slots (its text); a {hash tag} puts keys in one bucket.
     */
    CROSS_SLOT(38, RetryClass.FATAL, "CROSSSLOT", "Keys in request don't hash to the same slot"),
    /*
     * Codes only need to be unique and never reused: branches merged on the same day took 36-39, 45 and 46.
     */
    /**
     * The bucket is archived in the object store; the replicaset's leader is restoring it (issue 23).
     * Nothing was applied; the router retries until the restore is done or its deadline passes.
     */
    BUCKET_RESTORING(45, RetryClass.RETRY_LATER, "TRYAGAIN", "the bucket is archived and being restored; retry shortly"),
    /**
     * The bucket is archived and the leader's queue of restores is full: nothing was applied and no
     * restore was queued for it. The router does not retry it itself (that would hold the load it
     * sheds); the client retries later.
     */
    RESTORE_QUEUE_FULL(46, RetryClass.RETRY_LATER, "TRYAGAIN", "too many archived buckets are being restored; retry later"),
    /**
     * RESTORE without REPLACE onto a key that exists (Redis's text). Code 52, away from the next free
     * numbers that parallel branches are likely to take.
     */
    BUSY_KEY(52, RetryClass.FATAL, "BUSYKEY", "Target key name already exists."),
    /** A client address failed AUTH too often within the window; every AUTH from it is refused until the window ends (issue 26). */
    AUTH_RATE_LIMITED(39, RetryClass.RETRY_LATER, "ERR", "too many failed AUTH attempts from this address; retry later");

    public final int code;
    public final RetryClass retry;
    public final String redisPrefix;
    public final String description;

    ErrorCode(int code, RetryClass retry, String redisPrefix, String description) {
        this.code = code;
        this.retry = retry;
        this.redisPrefix = redisPrefix;
        this.description = description;
    }

    public static ErrorCode ofCode(int code) {
        for (ErrorCode c : values()) if (c.code == code) return c;
        return INTERNAL;
    }
}
