package io.cairn.coordinator;

import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.util.MD5FileUtil;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Reads and writes the one-file JSON snapshot of a {@link TopologyLedger}, named by Ratis's
 * {@link SimpleStateMachineStorage} convention (term and index in the file name) with an MD5
 * side file. A snapshot is written to a temporary file and moved into place, so a crash never
 * leaves a half-written snapshot under the real name.
 */
final class SnapshotFiles {
    private SnapshotFiles() {}

    static SingleFileSnapshotInfo write(SimpleStateMachineStorage storage, TermIndex applied,
                                        TopologyLedger.Snapshot snapshot) throws IOException {
        File file = storage.getSnapshotFile(applied.getTerm(), applied.getIndex());
        Path tmp = file.toPath().resolveSibling(file.getName() + ".tmp");
        Files.write(tmp, Codec.toBytes(snapshot));
        Files.move(tmp, file.toPath(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        MD5Hash md5 = MD5FileUtil.computeAndSaveMd5ForFile(file);
        return new SingleFileSnapshotInfo(new FileInfo(file.toPath(), md5), applied);
    }

    /**
     * The ledger snapshot in {@code info}. A missing or corrupt file fails the start: the log
     * before the snapshot may be purged, so starting without it would silently lose state.
     */
    static TopologyLedger.Snapshot read(SingleFileSnapshotInfo info) throws IOException {
        Path path = info.getFile().getPath();
        if (!Files.exists(path)) throw new IOException("coordinator snapshot file " + path + " is missing");
        MD5Hash md5 = info.getFile().getFileDigest();
        if (md5 != null) MD5FileUtil.verifySavedMD5(path.toFile(), md5);
        try {
            return Codec.read(Files.readAllBytes(path), TopologyLedger.Snapshot.class, "snapshot " + path);
        } catch (RuntimeException e) {
            throw new IOException("cannot read coordinator snapshot " + path + ": " + e.getMessage(), e);
        }
    }
}
