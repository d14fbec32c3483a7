package io.cairn.raftbench.sofajraft;

import com.alipay.sofa.jraft.Closure;
import com.alipay.sofa.jraft.Iterator;
import com.alipay.sofa.jraft.Status;
import com.alipay.sofa.jraft.core.StateMachineAdapter;
import com.alipay.sofa.jraft.error.RaftError;
import com.alipay.sofa.jraft.error.RaftException;
import io.cairn.raftbench.RocksApplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;

/**
 * Applies each committed entry to the member's {@link RocksApplier}, in log order on jraft's single
 * state-machine thread, then completes the leader's proposal through the entry's closure.
 */
final class ApplierStateMachine extends StateMachineAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(ApplierStateMachine.class);

    private final RocksApplier applier;

    ApplierStateMachine(RocksApplier applier) {
        this.applier = applier;
    }

    @Override
    public void onApply(Iterator iter) {
        while (iter.hasNext()) {
            long index = iter.getIndex();
            ByteBuffer data = iter.getData();
            try {
                if (data.hasArray()) {
                    applier.apply(index, data.array(), data.arrayOffset() + data.position(), data.remaining());
                } else {
                    byte[] copy = new byte[data.remaining()];
                    data.duplicate().get(copy);
                    applier.apply(index, copy);
                }
            } catch (RuntimeException e) {
                // This entry and the rest of the batch are not applied; the node stops in an error state.
                LOG.error("apply of entry {} failed", index, e);
                iter.setErrorAndRollback(1, new Status(RaftError.ESTATEMACHINE, "apply of entry %d failed: %s", index, e));
                return;
            }
            Closure done = iter.done();
            if (done != null) done.run(Status.OK());
            iter.next();
        }
    }

    @Override
    public void onError(RaftException e) {
        LOG.error("sofajraft node stopped in error: {}", e.getStatus());
    }
}
