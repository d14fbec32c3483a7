package io.cairn.router.resp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.redis.RedisEncoder;
import io.netty.handler.codec.redis.RedisMessage;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Encoding one reply, up to the buffers handed to the socket: {@link ReplyEncoder} against
 * Netty's {@code RedisEncoder} (which it replaced). GET: a 100-byte bulk; MGET: an array of 16.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ReplyEncodeBenchmark {
    @Param({"get", "mget"})
    public String reply;

    private final byte[] value = "x".repeat(100).getBytes();
    private EmbeddedChannel ours;
    private EmbeddedChannel netty;

    @Setup
    public void setUp() {
        ours = new EmbeddedChannel(new ReplyEncoder());
        netty = new EmbeddedChannel(new RedisEncoder());
    }

    private RedisMessage newReply() {
        if (reply.equals("get")) return Replies.bulk(value);
        RedisMessage[] values = new RedisMessage[16];
        for (int i = 0; i < values.length; i++) values[i] = Replies.bulk(value);
        return Replies.array(List.of(values));
    }

    @Benchmark
    public void replyEncoder(Blackhole hole) {
        encode(ours, hole);
    }

    @Benchmark
    public void nettyRedisEncoder(Blackhole hole) {
        encode(netty, hole);
    }

    private void encode(EmbeddedChannel channel, Blackhole hole) {
        channel.writeOutbound(newReply());
        for (ByteBuf buf; (buf = channel.readOutbound()) != null; ) {
            hole.consume(buf.readableBytes());
            buf.release();
        }
    }
}
