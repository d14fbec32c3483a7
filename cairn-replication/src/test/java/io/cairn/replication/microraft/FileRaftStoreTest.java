package io.cairn.replication.microraft;

import io.microraft.RaftEndpoint;
import io.microraft.model.log.LogEntry;
import io.microraft.persistence.RestoredRaftState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static io.cairn.replication.microraft.ModelCodec.MODEL;
import static org.assertj.core.api.Assertions.assertThat;

/** The log store on its own: what a restart finds after a clean stop, a torn write and a conflict truncation. */
class FileRaftStoreTest {
    @TempDir
    Path dir;

    @Test
    void aRestartRestoresTermVoteAndEntriesAndCutsOffATornTail() throws IOException {
        try (FileRaftStore store = open()) {
            assertThat(store.restoredState()).isNull(); // a new folder
            initialise(store);
            store.persistAndFlushTerm(MODEL.createRaftTermPersistentStateBuilder().setTerm(3).setVotedFor(new Endpoint("m1", null)).build());
            store.persistLogEntries(entries(1, 10, 2));
            store.truncateLogEntriesFrom(8); // a new leader overwrote 8..10
            store.persistLogEntries(entries(8, 12, 3));
            store.flush();
        }
        Path segment = onlySegment();
        Files.write(segment, new byte[] {0, 0, 0, 40, 1, 2, 3, 4, 5, 6}, StandardOpenOption.APPEND); // a record cut short by a crash

        try (FileRaftStore store = open()) {
            RestoredRaftState restored = store.restoredState();
            assertThat(restored.getTermPersistentState().getTerm()).isEqualTo(3);
            assertThat(Endpoint.idOf(restored.getTermPersistentState().getVotedFor())).isEqualTo("m1");
            assertThat(Endpoint.idOf(restored.getLocalEndpointPersistentState().getLocalEndpoint())).isEqualTo("m0");
            List<LogEntry> log = restored.getLogEntries();
            assertThat(log).extracting(LogEntry::getIndex).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L, 12L);
            assertThat(log.get(6).getTerm()).isEqualTo(2);
            assertThat(log.get(7).getTerm()).isEqualTo(3);
            assertThat(new String((byte[]) log.get(11).getOperation(), StandardCharsets.UTF_8)).isEqualTo("c12");
            assertThat(store.terms().termOf(7)).isEqualTo(2);
            assertThat(store.terms().termOf(12)).isEqualTo(3);
            assertThat(new String(Files.readAllBytes(segment), StandardCharsets.ISO_8859_1)).as("the torn record is gone")
                    .doesNotContain(new String(new byte[] {1, 2, 3, 4, 5, 6}, StandardCharsets.ISO_8859_1));
            store.persistLogEntries(entries(13, 13, 3)); // and the log goes on after it
            store.flush();
        }
        try (FileRaftStore store = open()) {
            assertThat(store.restoredState().getLogEntries()).hasSize(13);
        }
    }

    private FileRaftStore open() throws IOException {
        return new FileRaftStore(dir.resolve("raft"), new SnapshotFiles(dir.resolve("snapshots"), "m0"));
    }

    private static void initialise(FileRaftStore store) throws IOException {
        List<RaftEndpoint> members = List.of(new Endpoint("m0", "127.0.0.1:1"), new Endpoint("m1", "127.0.0.1:2"));
        store.persistAndFlushLocalEndpoint(MODEL.createRaftEndpointPersistentStateBuilder().setLocalEndpoint(members.get(0)).setVoting(true).build());
        store.persistAndFlushInitialGroupMembers(MODEL.createRaftGroupMembersViewBuilder().setLogIndex(0).setMembers(members)
                .setVotingMembers(members).build());
    }

    private static List<LogEntry> entries(long from, long to, int term) {
        List<LogEntry> entries = new ArrayList<>();
        for (long i = from; i <= to; i++) {
            entries.add(MODEL.createLogEntryBuilder().setIndex(i).setTerm(term).setOperation(("c" + i).getBytes(StandardCharsets.UTF_8)).build());
        }
        return entries;
    }

    private Path onlySegment() throws IOException {
        try (Stream<Path> s = Files.list(dir.resolve("raft").resolve("log"))) {
            List<Path> segments = s.toList();
            assertThat(segments).hasSize(1);
            return segments.get(0);
        }
    }
}
