package io.cairn.server.process;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import org.slf4j.Logger;

import java.util.Optional;
import java.util.function.Supplier;

/**
 * A process that needs its coordinator's answer to go on, started in any order (issue 22): it asks
 * again with a backoff from 100 ms to 5 s while no coordinator answers, logging one line when the
 * wait begins and one when it ends.
 */
final class CoordinatorWait {
    private CoordinatorWait() {}

    /**
     * @param waiting   what the process waits for, for the log ("router r1 waits for a coordinator ...")
     * @param call      the coordinator call; UNAVAILABLE means ask again, any other refusal is thrown
     * @param meanwhile asked after the first failed call: an answer to go on with instead of waiting (empty: wait)
     */
    static <T> T answer(Logger log, String waiting, Supplier<T> call, Supplier<Optional<T>> meanwhile) {
        long waitMs = 100;
        boolean told = false;
        while (true) {
            try {
                T answer = call.get();
                if (told) log.info("{}: a coordinator answered", waiting);
                return answer;
            } catch (CairnException e) {
                if (e.code() != ErrorCode.UNAVAILABLE) throw e;
                log.debug("{}: {}", waiting, e.getMessage());
            }
            if (!told) {
                Optional<T> instead = meanwhile.get();
                if (instead.isPresent()) return instead.get();
                log.info("{} (none answers yet)", waiting);
                told = true;
            }
            try {
                Thread.sleep(waitMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CairnException(ErrorCode.UNAVAILABLE, "interrupted while waiting for a coordinator");
            }
            waitMs = Math.min(5_000, waitMs * 2);
        }
    }
}
