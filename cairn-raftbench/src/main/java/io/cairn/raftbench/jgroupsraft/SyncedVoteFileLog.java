package io.cairn.raftbench.jgroupsraft;

import org.jgroups.Address;
import org.jgroups.protocols.raft.FileBasedLog;
import org.jgroups.protocols.raft.Log;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;

/**
 * jgroups-raft's {@link FileBasedLog} with the vote forced to disk as well. With {@code log_use_fsync} on,
 * FileBasedLog 1.0.14 forces every append of entries (before the member acknowledges them) and the term
 * (an msync of the mapped metadata), but writes the vote without forcing it ({@code MetadataStorage.setVotedFor};
 * upstream forces it from 2.0.0.Beta1, commit 4c6961f "VotedFor should flush"). Every other engine in the
 * comparison forces its vote before answering a vote request, so this one does too: jgroups-raft records the
 * vote ({@code RAFT.votedFor}) before it sends the vote response, on the same thread, and this class forces
 * the metadata file there. Votes are rare: one or two forces per election.
 *
 * <p>It also forces the log folder and its parent once after opening, so that the files FileBasedLog creates
 * on a first start survive a crash. Named by class in the RAFT protocol's {@code log_class}.
 */
public final class SyncedVoteFileLog extends FileBasedLog {
    /** FileBasedLog's metadata file (org.jgroups.raft.filelog.MetadataStorage.FILE_NAME) in the log folder. */
    static final String METADATA_FILE = "metadata.raft";

    private FileChannel metadata;

    @Override
    public void init(String log_name, Map<String, String> args) throws Exception {
        super.init(log_name, args);
        Path dir = Path.of(log_name);
        metadata = FileChannel.open(dir.resolve(METADATA_FILE), StandardOpenOption.WRITE);
        forceDirectory(dir);
        if (dir.toAbsolutePath().getParent() != null) forceDirectory(dir.toAbsolutePath().getParent());
    }

    @Override
    public Log votedFor(Address member) {
        super.votedFor(member);
        if (useFsync()) {
            try {
                // fsync: the vote is written (or cut off, for no vote) through another descriptor of the same file
                metadata.force(true);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot force the vote to disk", e);
            }
        }
        return this;
    }

    @Override
    public void close() {
        try {
            super.close();
        } finally {
            closeMetadata();
        }
    }

    @Override
    public void delete() {
        closeMetadata();
        super.delete();
    }

    private void closeMetadata() {
        if (metadata == null) return;
        try {
            metadata.close();
        } catch (IOException ignored) {
            // nothing left to force
        }
        metadata = null;
    }

    private static void forceDirectory(Path dir) throws IOException {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }
}
