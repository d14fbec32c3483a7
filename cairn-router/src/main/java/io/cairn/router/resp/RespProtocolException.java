package io.cairn.router.resp;

/**
 * The client broke the RESP framing. Expected (a buggy or hostile client), so it carries no
 * stack trace; the connection answers "-ERR Protocol error: ..." and is closed.
 */
final class RespProtocolException extends RuntimeException {
    RespProtocolException(String message) {
        super(message, null, false, false);
    }
}
