package io.cairn.router.resp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.FixedRedisMessagePool;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.RedisArrayAggregator;
import io.netty.handler.codec.redis.RedisBulkStringAggregator;
import io.netty.handler.codec.redis.RedisDecoder;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.util.ReferenceCountUtil;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Decoding one read of 16 pipelined requests (as redis-benchmark -P 16 sends them) into argument
 * arrays: {@link RequestDecoder} against the Netty pipeline it replaced ({@code RedisDecoder},
 * bulk and array aggregators, then a copy of each argument, as the connection handler did;
 * without the request guard that also sat in it, so the baseline is slightly flattered).
 * Scores are per request.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RequestDecodeBenchmark {
    private static final int PIPELINE = 16;

    @Param({"get", "set"})
    public String command;

    private ByteBuf requests;
    private EmbeddedChannel onePass;
    private EmbeddedChannel nettyPipeline;

    @Setup
    public void setUp() {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < PIPELINE; i++) {
            String key = String.format("key:%012d", 1_000 + i);
            if (command.equals("get")) {
                s.append("*2\r\n$3\r\nGET\r\n$16\r\n").append(key).append("\r\n");
            } else {
                s.append("*3\r\n$3\r\nSET\r\n$16\r\n").append(key).append("\r\n$100\r\n").append("x".repeat(100)).append("\r\n");
            }
        }
        requests = Unpooled.directBuffer().writeBytes(s.toString().getBytes(StandardCharsets.US_ASCII));
        RespConfig config = RespConfig.builder().build();
        onePass = new EmbeddedChannel(new RequestDecoder(config));
        nettyPipeline = new EmbeddedChannel(new RedisDecoder(config.maxInlineBytes(), FixedRedisMessagePool.INSTANCE, true),
                new RedisBulkStringAggregator(), new RedisArrayAggregator(config.maxArgs(), 1));
    }

    @Benchmark
    @OperationsPerInvocation(PIPELINE)
    public void onePassDecoder(Blackhole hole) {
        onePass.writeInbound(requests.retainedDuplicate());
        for (Object msg; (msg = onePass.readInbound()) != null; ) hole.consume(((CommandArgs) msg).count());
    }

    @Benchmark
    @OperationsPerInvocation(PIPELINE)
    public void nettyCodecPipeline(Blackhole hole) {
        nettyPipeline.writeInbound(requests.retainedDuplicate());
        for (Object msg; (msg = nettyPipeline.readInbound()) != null; ) {
            List<RedisMessage> children = ((ArrayRedisMessage) msg).children();
            byte[][] argv = new byte[children.size()][];
            for (int i = 0; i < argv.length; i++) argv[i] = ByteBufUtil.getBytes(((FullBulkStringRedisMessage) children.get(i)).content());
            hole.consume(argv);
            ReferenceCountUtil.release(msg);
        }
    }
}
