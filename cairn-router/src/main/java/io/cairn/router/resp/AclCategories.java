package io.cairn.router.resp;

import java.util.Set;
import java.util.TreeSet;

/**
 * Redis's ACL categories for the commands Cairn has: read, write, fast and slow and admin from a
 * command's flags, the data type (string, hash, list, set, sortedset) and keyspace, connection and
 * dangerous from its name, as Redis 7 assigns them. A command added later gets its categories from
 * its flags and, for a list, set or sorted-set command, from the name as Redis spells it.
 */
final class AclCategories {
    static final Set<String> ALL = Set.of("keyspace", "read", "write", "set", "sortedset", "list", "hash", "string", "fast", "slow",
            "admin", "dangerous", "connection", "bitmap", "transaction");
    private static final Set<String> STRING = Set.of("get", "set", "setnx", "setex", "psetex", "getset", "getdel", "mget", "mset",
            "incr", "decr", "incrby", "decrby", "append", "strlen", "getex", "getrange", "setrange", "msetnx", "incrbyfloat", "substr", "lcs");
    private static final Set<String> BITMAP = Set.of("setbit", "getbit", "bitcount", "bitpos");
    private static final Set<String> TRANSACTION = Set.of("multi", "exec", "discard", "watch", "unwatch");
    private static final Set<String> KEYSPACE = Set.of("del", "unlink", "exists", "expire", "pexpire", "ttl", "pttl", "persist", "type",
            "dbsize", "scan", "keys", "flushall", "flushdb", "rename", "renamenx", "expireat", "pexpireat", "randomkey",
            "expiretime", "pexpiretime", "touch", "copy", "object", "dump", "restore");
    private static final Set<String> CONNECTION = Set.of("ping", "echo", "quit", "select", "hello", "auth", "client");
    private static final Set<String> LIST = Set.of("lpush", "rpush", "lpushx", "rpushx", "lpop", "rpop", "llen", "lrange", "lindex",
            "lset", "lrem", "ltrim", "linsert", "lpos", "rpoplpush", "lmove", "lmpop", "blpop", "brpop", "blmove", "blmpop", "brpoplpush");
    private static final Set<String> SET = Set.of("sadd", "srem", "smembers", "sismember", "smismember", "scard", "spop", "srandmember",
            "sinter", "sunion", "sdiff", "sinterstore", "sunionstore", "sdiffstore", "smove", "sscan", "sintercard");
    private static final Set<String> DANGEROUS = Set.of("keys", "flushall", "flushdb", "config", "client", "info", "acl");

    private AclCategories() {}

    static Set<String> of(CommandSpec spec) {
        Set<String> c = new TreeSet<>();
        String name = spec.name();
        if (spec.flags().contains("write")) c.add("write");
        if (spec.flags().contains("readonly")) c.add("read");
        c.add(spec.flags().contains("fast") ? "fast" : "slow");
        if (spec.flags().contains("admin")) c.add("admin");
        if (DANGEROUS.contains(name) || spec.flags().contains("admin")) c.add("dangerous");
        if (STRING.contains(name)) c.add("string");
        else if (BITMAP.contains(name)) c.add("bitmap");
        else if (TRANSACTION.contains(name)) c.add("transaction");
        else if (KEYSPACE.contains(name)) c.add("keyspace");
        else if (CONNECTION.contains(name)) c.add("connection");
        else if (LIST.contains(name)) c.add("list");
        else if (SET.contains(name)) c.add("set");
        else if (name.startsWith("h") && spec.firstKey() > 0) c.add("hash");
        else if (name.startsWith("z") || name.startsWith("bz")) c.add("sortedset");
        return c;
    }
}
