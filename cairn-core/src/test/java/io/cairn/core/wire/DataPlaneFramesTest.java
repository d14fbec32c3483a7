package io.cairn.core.wire;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DataPlaneFramesTest {
    @Test
    void aRequestFrameDecodesToItsIdsTypeAndMessage() {
        UUID client = UUID.randomUUID();
        byte[] message = StorageRequest.stats();
        ByteBuffer frame = ByteBuffer.allocate(DataPlane.REQUEST_HEADER_BYTES + message.length)
                .putLong(77).putLong(client.getMostSignificantBits()).putLong(client.getLeastSignificantBits())
                .put(DataPlane.READ).put(message).flip();
        DataPlane.Request r = DataPlane.decodeRequest(frame);
        assertThat(r.callId()).isEqualTo(77);
        assertThat(r.clientId()).isEqualTo(client);
        assertThat(r.type()).isEqualTo(DataPlane.READ);
        assertThat(r.payload().remaining()).isEqualTo(message.length);
        assertThat(r.payload().get(0)).isEqualTo(message[0]);
    }

    @Test
    void aStaleReadFrameCarriesTheIndexTheMemberMustHaveApplied() {
        UUID client = UUID.randomUUID();
        byte[] message = StorageRequest.read(java.util.List.of(io.cairn.core.kv.KvOp.get(1, new byte[] {'k'})));
        ByteBuffer frame = ByteBuffer.allocate(DataPlane.REQUEST_HEADER_BYTES + DataPlane.MIN_INDEX_BYTES + message.length)
                .putLong(78).putLong(client.getMostSignificantBits()).putLong(client.getLeastSignificantBits())
                .put(DataPlane.STALE_READ).putLong(4242).put(message).flip();
        DataPlane.Request r = DataPlane.decodeRequest(frame);
        assertThat(r.type()).isEqualTo(DataPlane.STALE_READ);
        assertThat(r.minIndex()).isEqualTo(4242);
        assertThat(r.payload().remaining()).isEqualTo(message.length);
        assertThat(r.payload().get(0)).isEqualTo(message[0]);
    }

    @Test
    void aRequestCanCarryItsSendersEpochBeforeTheMinimumIndex() {
        UUID client = UUID.randomUUID();
        byte[] message = StorageRequest.read(java.util.List.of(io.cairn.core.kv.KvOp.get(1, new byte[] {'k'})));
        ByteBuffer frame = ByteBuffer.allocate(DataPlane.REQUEST_HEADER_BYTES + DataPlane.EPOCH_BYTES + DataPlane.MIN_INDEX_BYTES + message.length)
                .putLong(79).putLong(client.getMostSignificantBits()).putLong(client.getLeastSignificantBits())
                .put((byte) (DataPlane.STALE_READ | DataPlane.EPOCH_FLAG)).putLong(7).putLong(4242).put(message).flip();
        DataPlane.Request r = DataPlane.decodeRequest(frame);
        assertThat(r.type()).isEqualTo(DataPlane.STALE_READ);
        assertThat(r.epoch()).isEqualTo(7);
        assertThat(r.minIndex()).isEqualTo(4242);
        assertThat(r.payload().remaining()).isEqualTo(message.length);
    }

    @Test
    void anUnknownRequestTypeIsRefused() {
        ByteBuffer frame = ByteBuffer.allocate(DataPlane.REQUEST_HEADER_BYTES).putLong(1).putLong(2).putLong(3).put((byte) 9).flip();
        assertThatThrownBy(() -> DataPlane.decodeRequest(frame)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aNotLeaderResponseCarriesTheLeaderId() {
        byte[] leader = "s1-2".getBytes(StandardCharsets.UTF_8);
        ByteBuffer frame = ByteBuffer.allocate(DataPlane.RESPONSE_HEADER_BYTES + leader.length)
                .putLong(5).put(DataPlane.NOT_LEADER).putLong(0).put(leader).flip();
        DataPlane.Response r = DataPlane.decodeResponse(frame);
        assertThat(r.callId()).isEqualTo(5);
        assertThat(r.status()).isEqualTo(DataPlane.NOT_LEADER);
        assertThat(r.text()).isEqualTo("s1-2");
    }

    @Test
    void theEndpointQueryIsNotAStorageRequestKind() {
        assertThat(DataPlane.isEndpointQuery(ByteBuffer.wrap(DataPlane.endpointQuery()))).isTrue();
        assertThat(DataPlane.isEndpointQuery(ByteBuffer.wrap(StorageRequest.stats()))).isFalse();
        assertThat((int) DataPlane.ENDPOINT_QUERY).isGreaterThanOrEqualTo(StorageRequest.Kind.values().length);
    }
}
