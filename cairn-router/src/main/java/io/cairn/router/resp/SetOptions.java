package io.cairn.router.resp;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.kv.KvOp;

/**
 * The options of SET (NX XX GET KEEPTTL EX PX EXAT PXAT), parsed with Redis 7's rules: NX
 * with XX, two expiry options, or an expiry with KEEPTTL are syntax errors; an expiry must be a
 * positive integer whose milliseconds fit in a long.
 *
 * @param flags {@link KvOp} flags
 * @param arg   the expiry in milliseconds (relative or absolute per the flags), else 0
 */
record SetOptions(int flags, long arg) {
    /**
     * The leader turns relative times absolute by adding its clock (unix ms, below 2^43 until
     * the year 2248); this bound keeps that sum from overflowing.
     */
    static final long MAX_RELATIVE_EXPIRE_MS = Long.MAX_VALUE - (1L << 43);

    private enum Expiry {
        EX(1000, KvOp.FLAG_EXPIRE_REL), PX(1, KvOp.FLAG_EXPIRE_REL),
        EXAT(1000, KvOp.FLAG_EXPIRE_ABS), PXAT(1, KvOp.FLAG_EXPIRE_ABS);

        final long unitMs;
        final int flag;

        Expiry(long unitMs, int flag) {
            this.unitMs = unitMs;
            this.flag = flag;
        }
    }

    /** Parses arguments 3.. of {@code SET key value [options]}. */
    static SetOptions parse(CommandArgs args) {
        int flags = 0;
        Expiry expiry = null;
        int expiryIndex = 0;
        for (int i = 3; i < args.count(); i++) {
            Expiry candidate = i + 1 < args.count() ? expiryNamed(args, i) : null;
            if (args.is(i, "nx") && (flags & KvOp.FLAG_XX) == 0) {
                flags |= KvOp.FLAG_NX;
            } else if (args.is(i, "xx") && (flags & KvOp.FLAG_NX) == 0) {
                flags |= KvOp.FLAG_XX;
            } else if (args.is(i, "get")) {
                flags |= KvOp.FLAG_GET;
            } else if (args.is(i, "keepttl") && expiry == null) {
                flags |= KvOp.FLAG_KEEPTTL;
            } else if (candidate != null && expiry == null && (flags & KvOp.FLAG_KEEPTTL) == 0) {
                expiry = candidate;
                expiryIndex = ++i;
            } else {
                throw new CairnException(ErrorCode.SYNTAX);
            }
        }
        if (expiry == null) return new SetOptions(flags, 0);
        return new SetOptions(flags | expiry.flag, expiryMs(args.longAt(expiryIndex), expiry));
    }

    private static Expiry expiryNamed(CommandArgs args, int index) {
        for (Expiry e : Expiry.values()) if (args.is(index, e.name())) return e;
        return null;
    }

    private static long expiryMs(long when, Expiry expiry) {
        if (when <= 0 || when > Long.MAX_VALUE / expiry.unitMs) throw invalidExpire("set");
        long ms = when * expiry.unitMs;
        if (expiry.flag == KvOp.FLAG_EXPIRE_REL && ms > MAX_RELATIVE_EXPIRE_MS) throw invalidExpire("set");
        return ms;
    }

    static CairnException invalidExpire(String command) {
        return new CairnException(ErrorCode.INVALID_EXPIRE, "invalid expire time in '" + command + "' command");
    }
}
