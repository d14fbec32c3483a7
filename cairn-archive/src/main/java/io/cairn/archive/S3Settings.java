package io.cairn.archive;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * How to reach an S3-compatible store. {@code endpoint} null means AWS itself; Ceph RGW, MinIO and
 * s3proxy need an endpoint and usually {@code pathStyle} (bucket in the path, not the host name).
 * Credentials null means the AWS default chain (environment, profile, instance role).
 */
public record S3Settings(URI endpoint, String region, String bucket, boolean pathStyle,
                         String accessKeyId, String secretAccessKey,
                         Duration connectTimeout, Duration socketTimeout) {
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
    public static final Duration DEFAULT_SOCKET_TIMEOUT = Duration.ofSeconds(60);

    public S3Settings {
        Objects.requireNonNull(region, "region");
        Objects.requireNonNull(bucket, "bucket");
        if (bucket.isBlank()) throw new IllegalArgumentException("the S3 bucket name is empty");
        if ((accessKeyId == null) != (secretAccessKey == null))
            throw new IllegalArgumentException("give both the S3 access key id and the secret, or neither");
        if (connectTimeout == null) connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        if (socketTimeout == null) socketTimeout = DEFAULT_SOCKET_TIMEOUT;
    }

    /** A store at an explicit endpoint with static credentials (s3proxy, MinIO, Ceph RGW). */
    public static S3Settings at(URI endpoint, String region, String bucket, String accessKeyId, String secretAccessKey) {
        return new S3Settings(endpoint, region, bucket, true, accessKeyId, secretAccessKey, null, null);
    }

    @Override
    public String toString() { // never print the secret
        return "S3Settings[endpoint=" + endpoint + ", region=" + region + ", bucket=" + bucket
                + ", pathStyle=" + pathStyle + ", accessKeyId=" + accessKeyId + "]";
    }
}
