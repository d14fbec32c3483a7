package io.cairn.replication.microraft;

import io.microraft.RaftEndpoint;
import io.microraft.executor.RaftNodeExecutor;
import io.microraft.model.log.LogEntry;
import io.microraft.model.message.AppendEntriesRequest;
import io.microraft.model.message.RaftMessage;
import io.microraft.transport.Transport;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.cairn.replication.microraft.ModelCodec.MODEL;
import static org.assertj.core.api.Assertions.assertThat;

/** The leader's idle appends held for a moment, driven by hand-made messages and a timer run by hand. */
class IdleAppendHoldTest {
    private static final Endpoint M1 = new Endpoint("m1", null);
    private static final Endpoint M2 = new Endpoint("m2", null);
    private final List<String> sent = new ArrayList<>();
    private final List<Runnable> timers = new ArrayList<>();
    private final List<Long> delaysMicros = new ArrayList<>();
    private final IdleAppendHold hold = new IdleAppendHold(new Recording(), new ManualTimers(), 1_000);

    @Test
    void anIdleAppendIsHeldAndANewerAppendToTheSameFollowerReplacesIt() {
        hold.send(M1, append(5, 0, 0));
        hold.send(M2, append(5, 0, 0));
        assertThat(sent).as("a commit notice waits").isEmpty();
        assertThat(delaysMicros).containsExactly(1_000L, 1_000L);
        hold.send(M1, append(6, 1, 7)); // the next entry, with the newer commit index
        assertThat(sent).as("only the append with the entry goes to m1").containsExactly("m1 append commit=6 entries=1 flow=7");
        fireTimers();
        assertThat(sent).as("m2 had nothing newer: its notice goes when the hold ends")
                .containsExactly("m1 append commit=6 entries=1 flow=7", "m2 append commit=5 entries=0 flow=0");
    }

    @Test
    void aNewerIdleAppendReplacesTheHeldOneUnderTheSameTimer() {
        hold.send(M1, append(5, 0, 0));
        hold.send(M1, append(6, 0, 0));
        assertThat(delaysMicros).as("one timer per held message").hasSize(1);
        fireTimers();
        assertThat(sent).containsExactly("m1 append commit=6 entries=0 flow=0");
        fireTimers();
        assertThat(sent).as("nothing is sent twice").hasSize(1);
    }

    @Test
    void appendsTheLeaderWaitsForAndOtherMessagesGoAtOnceAfterWhatWasHeld() {
        hold.send(M1, append(5, 0, 3)); // a flow-control number: the leader waits for its answer (and the lease counts it)
        assertThat(sent).containsExactly("m1 append commit=5 entries=0 flow=3");
        hold.send(M1, append(6, 0, 0));
        hold.send(M1, MODEL.createTriggerLeaderElectionRequestBuilder().setGroupId("g").setSender(new Endpoint("m0", null))
                .setTerm(1).setLastLogTerm(1).setLastLogIndex(6).build());
        assertThat(sent).as("the follower hears the commit index before it is told to start an election")
                .containsExactly("m1 append commit=5 entries=0 flow=3", "m1 append commit=6 entries=0 flow=0", "m1 TriggerLeaderElection");
        fireTimers();
        assertThat(sent).hasSize(3);
    }

    @Test
    void aHoldOfZeroSendsEverythingAtOnce() {
        IdleAppendHold none = new IdleAppendHold(new Recording(), new ManualTimers(), 0);
        none.send(M1, append(5, 0, 0));
        assertThat(sent).containsExactly("m1 append commit=5 entries=0 flow=0");
        assertThat(timers).isEmpty();
    }

    private void fireTimers() {
        List<Runnable> due = new ArrayList<>(timers);
        timers.clear();
        due.forEach(Runnable::run);
    }

    private static AppendEntriesRequest append(long commitIndex, int entries, long flow) {
        List<LogEntry> log = new ArrayList<>();
        for (int i = 0; i < entries; i++) {
            log.add(MODEL.createLogEntryBuilder().setIndex(commitIndex + 1 + i).setTerm(1).setOperation(new byte[] {1}).build());
        }
        return MODEL.createAppendEntriesRequestBuilder().setGroupId("g").setSender(new Endpoint("m0", null)).setTerm(1)
                .setPreviousLogTerm(1).setPreviousLogIndex(commitIndex).setCommitIndex(commitIndex).setQuerySequenceNumber(0)
                .setFlowControlSequenceNumber(flow).setLogEntries(log).build();
    }

    private final class Recording implements Transport {
        @Override
        public void send(RaftEndpoint target, RaftMessage message) {
            String what = message instanceof AppendEntriesRequest a
                    ? "append commit=" + a.getCommitIndex() + " entries=" + a.getLogEntries().size() + " flow=" + a.getFlowControlSequenceNumber()
                    : message.getClass().getSimpleName().replace("Default", "").replace("Request", "").replace("OrBuilder", "");
            sent.add(Endpoint.idOf(target) + " " + what);
        }

        @Override
        public boolean isReachable(RaftEndpoint endpoint) {
            return true;
        }
    }

    private final class ManualTimers implements RaftNodeExecutor {
        @Override
        public void execute(Runnable task) {
            task.run();
        }

        @Override
        public void submit(Runnable task) {
            task.run();
        }

        @Override
        public void schedule(Runnable task, long delay, TimeUnit unit) {
            delaysMicros.add(unit.toMicros(delay));
            timers.add(task);
        }
    }
}
