package io.cairn.raftbench.ratis;

import io.cairn.raftbench.RocksApplier;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;

import java.util.concurrent.CompletableFuture;

/** Applies each committed entry to the harness's RocksDB, as Cairn's StorageStateMachine does (one write batch per entry). */
final class RatisStateMachine extends BaseStateMachine {
    private static final CompletableFuture<Message> EMPTY = CompletableFuture.completedFuture(Message.EMPTY);

    private final RocksApplier applier;

    RatisStateMachine(RocksApplier applier) {
        this.applier = applier;
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        applier.apply(entry.getIndex(), entry.getStateMachineLogEntry().getLogData().toByteArray());
        updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
        return EMPTY;
    }
}
