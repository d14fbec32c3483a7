package io.cairn.router.resp;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.kv.KvOp;

import java.util.Locale;

/** Redis 7's NX, XX, GT and LT of EXPIRE, PEXPIRE, EXPIREAT and PEXPIREAT, with its error texts. */
final class ExpireOptions {
    private ExpireOptions() {}

    /** The {@link KvOp} flags of the options from argument {@code from} on. */
    static int flags(CommandArgs args, int from) {
        int flags = 0;
        for (int i = from; i < args.count(); i++) {
            switch (args.string(i).toUpperCase(Locale.ROOT)) {
                case "NX" -> flags |= KvOp.FLAG_NX;
                case "XX" -> flags |= KvOp.FLAG_XX;
                case "GT" -> flags |= KvOp.FLAG_GT;
                case "LT" -> flags |= KvOp.FLAG_LT;
                default -> throw new CairnException(ErrorCode.PROTOCOL, "Unsupported option " + args.printable(i));
            }
        }
        if ((flags & KvOp.FLAG_NX) != 0 && (flags & (KvOp.FLAG_XX | KvOp.FLAG_GT | KvOp.FLAG_LT)) != 0) {
            throw new CairnException(ErrorCode.PROTOCOL, "NX and XX, GT or LT options at the same time are not compatible");
        }
        if ((flags & KvOp.FLAG_GT) != 0 && (flags & KvOp.FLAG_LT) != 0) {
            throw new CairnException(ErrorCode.PROTOCOL, "GT and LT options at the same time are not compatible");
        }
        return flags;
    }
}
