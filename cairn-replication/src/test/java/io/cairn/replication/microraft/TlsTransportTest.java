package io.cairn.replication.microraft;

import io.cairn.core.tls.ClusterTls;
import io.cairn.core.tls.LocalCertificateAuthority;
import io.cairn.core.tls.ReloadingFiles;
import io.cairn.replication.ReplicaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The MicroRaft transport with cluster TLS (issue 26 item 2): members of the cluster CA replicate over
 * mutually authenticated TLS, and a member whose certificate another CA signed is refused at every
 * handshake, so it neither receives entries nor disturbs the group's term with its votes.
 */
class TlsTransportTest {
    private static final ReloadingFiles.Events SILENT = ReloadingFiles.quiet(why -> { });

    @TempDir
    Path dir;
    private TestGroup group;

    @AfterEach
    void stop() {
        if (group != null) group.close();
        ClusterTls.install(null);
    }

    @Test
    @Timeout(60)
    void membersReplicateOverTlsAndAMemberOfAnotherCaCannotVoteOrReceiveEntries() throws Exception {
        LocalCertificateAuthority ca = LocalCertificateAuthority.create(dir.resolve("ca"), "cluster-ca", Duration.ofDays(1));
        LocalCertificateAuthority foreign = LocalCertificateAuthority.create(dir.resolve("foreign"), "cluster-ca", Duration.ofDays(1));
        ClusterTls member = ClusterTls.load(ca.issue("member", List.of()), SILENT);
        ClusterTls intruder = ClusterTls.load(foreign.issue("intruder", List.of()), SILENT);
        group = new TestGroup("g", dir.resolve("group"), 3, 1_000_000);

        ClusterTls.install(member); // a transport takes the process's TLS when it is made
        group.start("m0");
        group.start("m1");
        String leader = group.awaitLeader();
        long term = group.replica(leader).status().term();
        ClusterTls.install(intruder);
        group.start("m2");
        ClusterTls.install(member);

        List<String> commands = TestGroup.commands("tls", 30);
        group.propose(leader, commands);
        await().atMost(10, TimeUnit.SECONDS).until(() -> group.machine("m0").commands().equals(commands)
                && group.machine("m1").commands().equals(commands));
        // the intruder's election attempts reached both members and were refused at the handshake
        await().atMost(20, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(50))
                .until(() -> group.internals("m0").refusedConnections() > 0 && group.internals("m1").refusedConnections() > 0);

        ReplicaStatus intruderStatus = group.replica("m2").status();
        assertThat(group.machine("m2").commands()).as("nothing reached the intruder").isEmpty();
        assertThat(intruderStatus.role()).isNotEqualTo(ReplicaStatus.Role.LEADER);
        assertThat(intruderStatus.commitIndex()).isZero();
        assertThat(group.replica(leader).status().role()).isEqualTo(ReplicaStatus.Role.LEADER);
        assertThat(group.replica(leader).status().term()).as("the intruder's votes never counted").isEqualTo(term);
    }
}
