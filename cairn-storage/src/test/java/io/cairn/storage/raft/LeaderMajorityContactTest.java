package io.cairn.storage.raft;

import org.apache.ratis.proto.RaftProtos.FollowerInfoProto;
import org.apache.ratis.proto.RaftProtos.LeaderInfoProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerProto;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How long ago a leader last heard from a majority, and a follower from its leader: what bounds
 * follower (stale) reads.
 */
class LeaderMajorityContactTest {
    @Test
    void aLeaderOfThreeNeedsOneRecentFollower() {
        assertThat(StorageStateMachine.msSinceMajorityContact(leaderHearing(50, 5_000))).isEqualTo(50);
        assertThat(StorageStateMachine.msSinceMajorityContact(leaderHearing(4_000, 5_000))).isEqualTo(4_000);
    }

    @Test
    void aLeaderOfFiveNeedsTwoRecentFollowers() {
        assertThat(StorageStateMachine.msSinceMajorityContact(leaderHearing(3_000, 10, 4_000, 20))).isEqualTo(20);
        assertThat(StorageStateMachine.msSinceMajorityContact(leaderHearing(3_000, 10, 4_000, 9_000))).isEqualTo(3_000);
    }

    @Test
    void aGroupOfOneIsAlwaysInContactAndANonLeaderNever() {
        assertThat(StorageStateMachine.msSinceMajorityContact(leaderHearing())).isZero();
        assertThat(StorageStateMachine.msSinceMajorityContact(RoleInfoProto.getDefaultInstance())).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aFollowerThatKnowsNoLeaderHasNotHeardFromOne() {
        // What Ratis reports for a follower without a leader: an empty leader entry, 0 ms elapsed.
        RoleInfoProto noLeader = RoleInfoProto.newBuilder()
                .setFollowerInfo(FollowerInfoProto.newBuilder().setLeaderInfo(ServerRpcProto.getDefaultInstance())).build();
        assertThat(StorageStateMachine.msSinceLeaderContact(noLeader)).isEqualTo(Long.MAX_VALUE);
        assertThat(StorageStateMachine.msSinceLeaderContact(RoleInfoProto.getDefaultInstance())).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aFollowerOfAKnownLeaderCountsFromItsLastWord() {
        RoleInfoProto following = RoleInfoProto.newBuilder().setFollowerInfo(FollowerInfoProto.newBuilder().setLeaderInfo(
                ServerRpcProto.newBuilder().setId(RaftPeerProto.newBuilder().setId(ByteString.copyFromUtf8("rs1-n1"))).setLastRpcElapsedTimeMs(300)))
                .build();
        assertThat(StorageStateMachine.msSinceLeaderContact(following)).isEqualTo(300);
    }

    private static RoleInfoProto leaderHearing(long... followersElapsedMs) {
        LeaderInfoProto.Builder leader = LeaderInfoProto.newBuilder();
        for (long ms : followersElapsedMs) leader.addFollowerInfo(ServerRpcProto.newBuilder().setLastRpcElapsedTimeMs(ms));
        return RoleInfoProto.newBuilder().setLeaderInfo(leader).build();
    }
}
