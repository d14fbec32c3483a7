package io.cairn.core;

/** An expected failure with a catalogue code; carries no stack trace (it is a value, not a bug). */
public final class CairnException extends RuntimeException {
    private final ErrorCode code;

    public CairnException(ErrorCode code, String message) {
        super(message, null, false, false);
        this.code = code;
    }

    public CairnException(ErrorCode code) {
        this(code, code.description);
    }

    public ErrorCode code() {
        return code;
    }

    /** The RESP error line without the leading '-'. */
    public String redisMessage() {
        return code.redisPrefix + " " + getMessage();
    }
}
