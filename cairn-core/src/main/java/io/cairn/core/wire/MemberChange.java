package io.cairn.core.wire;

import io.cairn.core.WireCodes;
import io.cairn.core.topology.MemberIds;

import java.io.ByteArrayOutputStream;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * A {@link DataPlane#MEMBERSHIP} call: a replicaset's Raft members, read or changed one member at a
 * time on its leader (issue 21: adding, promoting and removing members to replace a node).
 *
 * <pre>
 * request  [op:1][expectedIndex:8][member][address]        (strings: [length:2][UTF-8])
 * reply    [index:8][committed:1][voters:4]([id][address])*[learners:4]([id][address])*
 * </pre>
 * A change names the index of the membership it starts from; the leader refuses it (FAILED) when
 * the membership changed since, so a re-sent or racing change never applies twice.
 */
public record MemberChange(Op op, String member, String address, long expectedIndex) {
    public enum Op {
        /** Reads the membership, changes nothing. */
        GET(0),
        /** Adds a member that receives the log but does not vote. */
        ADD_LEARNER(1),
        /** Makes a learner a voter. */
        PROMOTE(2),
        /** Removes a member, learner or voter. */
        REMOVE(3),
        /** Hands the leadership to a voter (before the leader itself is removed). */
        LEAD(4),
        /** Takes a snapshot now, so a new member catches up from it rather than by replaying the log. */
        SNAPSHOT(5);

        private static final Op[] BY_CODE = WireCodes.index(values(), Op::code);
        private final byte code;

        Op(int code) {
            this.code = (byte) code;
        }

        /** The op's wire code: never reuse or renumber one. */
        public byte code() {
            return code;
        }
    }

    public MemberChange {
        if (op == null) throw new IllegalArgumentException("op is required");
        member = member == null ? "" : member;
        address = address == null ? "" : address;
        if (op != Op.GET && op != Op.SNAPSHOT && member.isEmpty()) throw new IllegalArgumentException(op + " names no member");
    }

    public static MemberChange get() {
        return new MemberChange(Op.GET, "", "", 0);
    }

    public static MemberChange snapshot() {
        return new MemberChange(Op.SNAPSHOT, "", "", 0);
    }

    public static MemberChange lead(String member) {
        return new MemberChange(Op.LEAD, member, "", 0);
    }

    /** A replicaset's members at one log index. */
    public record View(long index, boolean committed, Map<String, String> voters, Map<String, String> learners) {
        public View {
            voters = Map.copyOf(voters);
            learners = Map.copyOf(learners);
        }

        public boolean has(String member) {
            return voters.containsKey(member) || learners.containsKey(member);
        }

        /** The member ids of node {@code node} in this membership (more than one while a node changes disk), voters first. */
        public List<String> membersOf(String node) {
            List<String> out = new ArrayList<>();
            for (String v : new TreeSet<>(voters.keySet())) if (MemberIds.nodeOf(v).equals(node)) out.add(v);
            for (String l : new TreeSet<>(learners.keySet())) if (MemberIds.nodeOf(l).equals(node)) out.add(l);
            return out;
        }

        /** Whether node {@code node} is a voter here, under any of its member ids. */
        public boolean nodeVotes(String node) {
            return voters.keySet().stream().anyMatch(v -> MemberIds.nodeOf(v).equals(node));
        }

        /** Whether {@code change} is in effect in this membership (a change whose reply was lost may still have applied). */
        public boolean shows(MemberChange change) {
            return switch (change.op()) {
                case ADD_LEARNER -> learners.containsKey(change.member());
                case PROMOTE -> voters.containsKey(change.member());
                case REMOVE -> !has(change.member());
                default -> false;
            };
        }

        /** Whether node {@code node} is a learner here, under any of its member ids. */
        public boolean nodeLearns(String node) {
            return learners.keySet().stream().anyMatch(l -> MemberIds.nodeOf(l).equals(node));
        }

        @Override
        public String toString() {
            return "voters " + new TreeSet<>(voters.keySet()) + (learners.isEmpty() ? "" : ", learners " + new TreeSet<>(learners.keySet()))
                    + " (index " + index + (committed ? "" : ", not yet committed") + ")";
        }
    }

    public byte[] encode() {
        byte[] m = member.getBytes(StandardCharsets.UTF_8);
        byte[] a = address.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(1 + 8 + 2 + m.length + 2 + a.length).put(op.code()).putLong(expectedIndex)
                .putShort((short) m.length).put(m).putShort((short) a.length).put(a).array();
    }

    /** @throws IllegalArgumentException for a malformed request */
    public static MemberChange decode(byte[] message) {
        try {
            ByteBuffer in = ByteBuffer.wrap(message);
            Op op = WireCodes.lookup(Op.BY_CODE, in.get(), "membership op");
            long expected = in.getLong();
            return new MemberChange(op, string(in), string(in), expected);
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("a truncated membership request");
        }
    }

    public static byte[] encode(View v) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer head = ByteBuffer.allocate(9).putLong(v.index()).put((byte) (v.committed() ? 1 : 0));
        out.writeBytes(head.array());
        members(out, v.voters());
        members(out, v.learners());
        return out.toByteArray();
    }

    public static View decodeView(ByteBuffer in) {
        long index = in.getLong();
        boolean committed = in.get() == 1;
        return new View(index, committed, members(in), members(in));
    }

    private static void members(ByteArrayOutputStream out, Map<String, String> members) {
        out.writeBytes(ByteBuffer.allocate(4).putInt(members.size()).array());
        members.forEach((id, address) -> {
            out.writeBytes(string(id));
            out.writeBytes(string(address));
        });
    }

    private static Map<String, String> members(ByteBuffer in) {
        int n = in.getInt();
        if (n < 0 || n > 1_000) throw new IllegalArgumentException("a membership of " + n + " members");
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) out.put(string(in), string(in));
        return out;
    }

    private static byte[] string(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(2 + b.length).putShort((short) b.length).put(b).array();
    }

    private static String string(ByteBuffer in) {
        int n = Short.toUnsignedInt(in.getShort());
        if (n > in.remaining()) throw new IllegalArgumentException("a string of " + n + " bytes past the end");
        byte[] b = new byte[n];
        in.get(b);
        return new String(b, StandardCharsets.UTF_8);
    }
}
