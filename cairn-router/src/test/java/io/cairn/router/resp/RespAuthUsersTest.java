package io.cairn.router.resp;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** How a router takes the users read from the store (the coordinator) against its own changes. */
class RespAuthUsersTest {
    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void usersReadFromTheStoreReplaceTheLocalOnesAndAStoredDefaultOverridesRequirepass() {
        RespAuth auth = RespAuth.withPassword("file-pw");
        String app = AclUser.created("app").apply(java.util.List.of("on", ">pw", "allkeys", "+@read"), c -> true).describe();
        String open = AclUser.created("default").apply(java.util.List.of("on", "nopass", "allkeys", "allcommands"), c -> true).describe();
        auth.replaceUsers(Map.of("app", app, "default", open), auth.changeMark());
        assertThat(auth.authenticate("app", bytes("pw"), "10.0.0.1")).isEqualTo(RespAuth.Verdict.OK);
        assertThat(auth.required()).as("the stored default user is nopass").isFalse();
        auth.replaceUsers(Map.of(), auth.changeMark());
        assertThat(auth.authenticate("app", bytes("pw"), "10.0.0.1")).isEqualTo(RespAuth.Verdict.WRONGPASS);
        assertThat(auth.required()).as("back to requirepass").isTrue();
        assertThat(auth.authenticate("default", bytes("file-pw"), "10.0.0.1")).isEqualTo(RespAuth.Verdict.OK);
    }

    @Test
    void aReadTakenBeforeALocalChangeDoesNotUndoIt() {
        RespAuth auth = RespAuth.open();
        long markBeforeTheChange = auth.changeMark();
        auth.changed("app", AclUser.created("app").apply(java.util.List.of("on", "nopass"), c -> true));
        auth.replaceUsers(Map.of(), markBeforeTheChange); // a stale read: the store did not have "app" yet
        assertThat(auth.user("app")).isNotNull();
        auth.replaceUsers(Map.of(), auth.changeMark()); // a fresh read: the user was deleted elsewhere
        assertThat(auth.user("app")).isNull();
    }

    @Test
    void aStoredUserWhoseRulesDoNotParseIsLeftOutAndTheOthersStay() {
        RespAuth auth = RespAuth.open();
        auth.replaceUsers(Map.of("odd", "on %R~future-rule", "fine", "on nopass ~* +@all"), auth.changeMark());
        assertThat(auth.user("odd")).isNull();
        assertThat(auth.user("fine")).isNotNull();
    }
}
