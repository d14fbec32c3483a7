package io.cairn.core.kv;

/**
 * CRC-32C arithmetic the JDK's {@code CRC32C} lacks: the CRC of two byte runs joined, from each run's
 * CRC and the second's length ({@link #combine}, zlib's {@code crc32_combine} over the Castagnoli
 * polynomial). A receiver can then check a big collection piece by piece, keeping only a running CRC
 * between pieces, instead of reading every element again at the last one.
 */
public final class Crc32c {
    /** The Castagnoli polynomial, bit-reflected. */
    private static final long POLYNOMIAL = 0x82F63B78L;

    private Crc32c() {}

    /** The CRC-32C of A followed by B, given {@code crcA}, {@code crcB} and B's length in bytes. */
    public static long combine(long crcA, long crcB, long lengthB) {
        if (lengthB <= 0) return crcA;
        long[] even = new long[32];
        long[] odd = new long[32];
        // the operator for one zero bit, then squared to 2 and to 4 zero bits
        odd[0] = POLYNOMIAL;
        long row = 1;
        for (int n = 1; n < 32; n++) {
            odd[n] = row;
            row <<= 1;
        }
        square(even, odd);
        square(odd, even);
        // apply lengthB zero bytes to crcA, one squaring per bit of the length (the first gives one byte)
        long crc = crcA;
        long length = lengthB;
        do {
            square(even, odd);
            if ((length & 1) != 0) crc = times(even, crc);
            length >>>= 1;
            if (length == 0) break;
            square(odd, even);
            if ((length & 1) != 0) crc = times(odd, crc);
            length >>>= 1;
        } while (length != 0);
        return crc ^ crcB;
    }

    private static long times(long[] matrix, long vector) {
        long sum = 0;
        for (int i = 0; vector != 0; i++, vector >>>= 1) {
            if ((vector & 1) != 0) sum ^= matrix[i];
        }
        return sum;
    }

    private static void square(long[] result, long[] matrix) {
        for (int n = 0; n < 32; n++) result[n] = times(matrix, matrix[n]);
    }
}
