package io.cairn.router.resp;

import io.cairn.core.testing.SeededRandom;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisEncoder;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ReplyEncoder} writes exactly the bytes of Netty's {@code RedisEncoder} for seeded random
 * replies (nested arrays, nulls, negative integers, UTF-8 text, bulks above the copy limit), and
 * releases them. {@code -Dcairn.seed=N} replays a seed ({@link SeededRandom}).
 */
@ExtendWith(SeededRandom.class)
class ReplyEncoderTest {
    @Test
    void repliesEncodeAsNettysEncoderWouldWriteThem(Random random) {
        for (int round = 0; round < 500; round++) {
            long replySeed = random.nextLong();
            Supplier<RedisMessage> reply = () -> randomReply(new Random(replySeed), 0);
            RedisMessage ours = reply.get();
            // An empty bulk wraps Netty's shared empty buffer, which is never released.
            boolean counted = (ours instanceof FullBulkStringRedisMessage b && !b.isNull() && b.content().capacity() > 0)
                    || (ours instanceof ArrayRedisMessage a && !a.isNull());
            assertThat(encode(new ReplyEncoder(), ours)).as("round %d", round)
                    .isEqualTo(encode(new RedisEncoder(), reply.get()));
            if (counted) assertThat(((io.netty.util.ReferenceCounted) ours).refCnt()).as("the reply of round %d is released", round).isZero();
        }
    }

    @Test
    void aSmallReplyLeavesAsOneBuffer() {
        EmbeddedChannel channel = new EmbeddedChannel(new ReplyEncoder());
        channel.writeOutbound(Replies.bulk(new byte[100]));
        ByteBuf only = channel.readOutbound();
        assertThat(only.readableBytes()).isEqualTo(100 + "$100\r\n\r\n".length());
        assertThat((Object) channel.readOutbound()).isNull();
        only.release();
    }

    private static byte[] encode(ChannelHandler encoder, RedisMessage reply) {
        EmbeddedChannel channel = new EmbeddedChannel(encoder);
        channel.writeOutbound(reply);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (ByteBuf buf; (buf = channel.readOutbound()) != null; ) {
            bytes.writeBytes(ByteBufUtil.getBytes(buf));
            buf.release();
        }
        return bytes.toByteArray();
    }

    private static RedisMessage randomReply(Random random, int depth) {
        return switch (random.nextInt(depth < 3 ? 7 : 6)) {
            case 0 -> new SimpleStringRedisMessage(random.nextBoolean() ? "OK" : "héllo wörld");
            case 1 -> new ErrorRedisMessage("ERR something " + random.nextInt(1000));
            case 2 -> new IntegerRedisMessage(random.nextInt(3) == 0 ? random.nextInt(10) : random.nextLong());
            case 3 -> FullBulkStringRedisMessage.NULL_INSTANCE;
            case 4, 5 -> {
                int length = random.nextInt(8) == 0 ? ReplyEncoder.COPY_LIMIT + random.nextInt(100) : random.nextInt(200);
                byte[] content = new byte[length];
                random.nextBytes(content);
                yield new FullBulkStringRedisMessage(Unpooled.wrappedBuffer(content));
            }
            default -> {
                if (random.nextInt(6) == 0) yield ArrayRedisMessage.NULL_INSTANCE;
                List<RedisMessage> children = new ArrayList<>();
                for (int i = random.nextInt(12); i > 0; i--) children.add(randomReply(random, depth + 1));
                yield new ArrayRedisMessage(children);
            }
        };
    }
}
