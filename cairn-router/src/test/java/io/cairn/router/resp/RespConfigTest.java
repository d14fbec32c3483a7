package io.cairn.router.resp;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RespConfigTest {
    @Test
    void defaultsMatchTheDocumentedLimits() {
        RespConfig config = RespConfig.defaults();
        assertThat(config.maxValueBytes()).isEqualTo(16 * 1024 * 1024);
        assertThat(config.maxKeyBytes()).isEqualTo(64 * 1024);
        assertThat(config.maxArgs()).isEqualTo(1_048_576);
        assertThat(config.maxInFlightPerConnection()).isEqualTo(1024);
        assertThat(config.maxArgBytes()).isEqualTo(config.maxValueBytes());
    }

    @Test
    void outOfRangeSettingsAreRejectedWithTheirName() {
        assertThatThrownBy(() -> RespConfig.builder().port(70_000).build()).hasMessageContaining("port");
        assertThatThrownBy(() -> RespConfig.builder().eventLoopThreads(0).build()).hasMessageContaining("eventLoopThreads");
        assertThatThrownBy(() -> RespConfig.builder().maxValueBytes(1024).maxBulkBytes(512).build())
                .hasMessageContaining("maxBulkBytes");
        assertThatThrownBy(() -> RespConfig.builder().host(" ").build()).hasMessageContaining("host");
    }
}
