package io.cairn.core.kv;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;
import java.util.zip.CRC32C;

import static org.assertj.core.api.Assertions.assertThat;

class Crc32cTest {
    @Test
    void theCrcOfTwoRunsJoinedIsTheCombinationOfTheirCrcs() {
        long seed = System.nanoTime();
        System.out.println("Crc32cTest seed " + seed);
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < 200; i++) {
            byte[] a = bytes(random, random.nextInt(0, 3000));
            byte[] b = bytes(random, random.nextInt(0, 3000));
            CRC32C joined = new CRC32C();
            joined.update(a);
            joined.update(b);
            assertThat(Crc32c.combine(crc(a), crc(b), b.length)).as("seed %d, %d + %d bytes", seed, a.length, b.length).isEqualTo(joined.getValue());
        }
    }

    @Test
    void manyRunsFoldLeftToTheCrcOfAll() {
        CRC32C all = new CRC32C();
        long running = crc(new byte[0]);
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 50; i++) {
            byte[] run = bytes(random, random.nextInt(1, 70_000));
            all.update(run);
            running = Crc32c.combine(running, crc(run), run.length);
        }
        assertThat(running).isEqualTo(all.getValue());
    }

    private static long crc(byte[] bytes) {
        CRC32C c = new CRC32C();
        c.update(bytes);
        return c.getValue();
    }

    private static byte[] bytes(SplittableRandom random, int n) {
        byte[] out = new byte[n];
        random.nextBytes(out);
        return out;
    }
}
