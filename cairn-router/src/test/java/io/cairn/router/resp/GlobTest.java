package io.cairn.router.resp;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class GlobTest {
    @Test
    void starAndQuestionMarkMatchLikeRedis() {
        assertThat(Glob.matches("*", "anything")).isTrue();
        assertThat(Glob.matches("*", "")).isTrue();
        assertThat(Glob.matches("max*", "maxmemory")).isTrue();
        assertThat(Glob.matches("max*", "save")).isFalse();
        assertThat(Glob.matches("s?ve", "save")).isTrue();
        assertThat(Glob.matches("*o*y", "maxmemory")).isTrue();
        assertThat(Glob.matches("*o*x", "maxmemory")).isFalse();
    }

    @Test
    void classesRangesAndEscapesMatch() {
        assertThat(Glob.matches("[sb]ave", "save")).isTrue();
        assertThat(Glob.matches("[^s]ave", "save")).isFalse();
        assertThat(Glob.matches("[a-z]ave", "save")).isTrue();
        assertThat(Glob.matches("sa\\*", "sa*")).isTrue();
        assertThat(Glob.matches("sa\\*", "save")).isFalse();
    }

    @Test
    void matchingIgnoresCase() {
        assertThat(Glob.matches("SAVE", "save")).isTrue();
    }

    @Test
    void hostilePatternsFinishQuickly() {
        String pattern = "*a".repeat(5_000) + "b";
        assertThat(Glob.matches(pattern, "a".repeat(5_000))).isFalse();
    }
}
