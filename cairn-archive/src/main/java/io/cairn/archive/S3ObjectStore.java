package io.cairn.archive;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.CopyObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.MetadataDirective;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.HashMap;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * {@link ObjectStore} on any S3-compatible service through the AWS SDK v2 with the JDK's
 * URLConnection HTTP client (the SDK's default clients drag Netty 4.1 into our Netty 4.2, STACK.md).
 *
 * <p>Conditional put uses {@code If-None-Match: *} (AWS since 2024, MinIO, s3proxy; a store that
 * ignores the header would make putIfAbsent a plain put, which is why callers of putIfAbsent only
 * write content-addressed objects, where both outcomes are the same bytes). Checksums are sent and
 * validated only when an operation requires them: the SDK's default CRC trailers use chunked
 * uploads that older Ceph and MinIO releases refuse.
 *
 * <p>Errors: 404 becomes {@code OBJECT_NOT_FOUND}, 403/400/other 4xx {@code OBJECT_STORE_REFUSED},
 * 5xx, 429, 408 and I/O failures {@code OBJECT_STORE_UNAVAILABLE} (after the SDK's own retries).
 */
public final class S3ObjectStore implements ObjectStore {
    /** Metadata key of {@link #putIfAbsent}'s write id (see there). */
    static final String WRITE_ID = "cairn-write-id";

    private final S3Client s3;
    private final String bucket;

    public S3ObjectStore(S3Settings settings) {
        S3ClientBuilder builder = S3Client.builder()
                .httpClient(UrlConnectionHttpClient.builder()
                        .connectionTimeout(settings.connectTimeout())
                        .socketTimeout(settings.socketTimeout())
                        .build())
                .region(Region.of(settings.region()))
                .forcePathStyle(settings.pathStyle())
                // No "Expect: 100-continue": the JDK's HttpURLConnection under it sometimes fails a PUT with
                // "Error writing request body to server" (seen on an empty object against s3proxy, all retries alike).
                .serviceConfiguration(software.amazon.awssdk.services.s3.S3Configuration.builder().expectContinueEnabled(false).build())
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .credentialsProvider(settings.accessKeyId() == null
                        ? DefaultCredentialsProvider.builder().build()
                        : StaticCredentialsProvider.create(AwsBasicCredentials.create(settings.accessKeyId(), settings.secretAccessKey())));
        if (settings.endpoint() != null) builder.endpointOverride(settings.endpoint());
        this.s3 = builder.build();
        this.bucket = settings.bucket();
    }

    /** Creates the store bucket if it is missing: for tests and {@code cairn up} against a fresh s3proxy/MinIO. */
    public void createBucketIfMissing() {
        call("create bucket " + bucket, null, () -> {
            try {
                s3.headBucket(b -> b.bucket(bucket));
            } catch (S3Exception e) {
                if (e.statusCode() != 404) throw e;
                s3.createBucket(b -> b.bucket(bucket));
            }
            return null;
        });
    }

    @Override
    public void put(String key, ObjectBody body, Map<String, String> metadata) {
        PutObjectRequest request = PutObjectRequest.builder().bucket(bucket).key(ObjectKeys.checkKey(key))
                .metadata(ObjectKeys.checkMetadata(metadata)).contentLength(body.lengthBytes()).build();
        call("put " + key, key, () -> s3.putObject(request, requestBody(body)));
    }

    @Override
    public boolean putIfAbsent(String key, ObjectBody body, Map<String, String> metadata) {
        // A 412 does not always mean "someone else wrote it": when the response to a successful
        // conditional PUT is lost, the SDK's retry meets our own object and gets 412, and s3proxy
        // 4.1.0 answers 412 even to the first, successful writer. A one-off write id in the metadata
        // tells the two apart: on 412 we HEAD the object, and it is ours if it carries our id.
        String writeId = UUID.randomUUID().toString();
        Map<String, String> withId = new HashMap<>(ObjectKeys.checkMetadata(metadata));
        withId.put(WRITE_ID, writeId);
        PutObjectRequest request = PutObjectRequest.builder().bucket(bucket).key(ObjectKeys.checkKey(key))
                .metadata(withId).contentLength(body.lengthBytes()).ifNoneMatch("*").build();
        try {
            s3.putObject(request, requestBody(body));
            return true;
        } catch (S3Exception e) {
            // 412: an object exists; 409: a concurrent conditional write of the same key is in progress
            if (e.statusCode() == 412 || e.statusCode() == 409)
                return head(key).map(o -> writeId.equals(o.metadata().get(WRITE_ID))).orElse(false);
            throw translate("put-if-absent " + key, key, e);
        } catch (SdkException e) {
            throw translate("put-if-absent " + key, key, e);
        }
    }

    @Override
    public InputStream get(String key) {
        GetObjectRequest request = GetObjectRequest.builder().bucket(bucket).key(ObjectKeys.checkKey(key)).build();
        return call("get " + key, key, () -> s3.getObject(request));
    }

    @Override
    public InputStream get(String key, long offsetBytes, long lengthBytes) {
        if (offsetBytes < 0 || lengthBytes < 0) throw ObjectKeys.refused("negative range " + offsetBytes + "+" + lengthBytes);
        if (lengthBytes == 0) {
            head(key).orElseThrow(() -> ObjectKeys.notFound(key));
            return InputStream.nullInputStream(); // HTTP ranges cannot say "zero bytes"
        }
        long last = offsetBytes + lengthBytes - 1 < 0 ? Long.MAX_VALUE : offsetBytes + lengthBytes - 1;
        GetObjectRequest request = GetObjectRequest.builder().bucket(bucket).key(ObjectKeys.checkKey(key))
                .range("bytes=" + offsetBytes + "-" + last).build();
        try {
            return s3.getObject(request);
        } catch (S3Exception e) {
            // 416: the range starts at or past the end; the folder store reads nothing there, and so do we
            if (e.statusCode() == 416) return InputStream.nullInputStream();
            throw translate("get " + key, key, e);
        } catch (SdkException e) {
            throw translate("get " + key, key, e);
        }
    }

    @Override
    public Optional<ObjectInfo> head(String key) {
        ObjectKeys.checkKey(key);
        try {
            HeadObjectResponse r = s3.headObject(b -> b.bucket(bucket).key(key));
            return Optional.of(new ObjectInfo(key, r.contentLength(), r.metadata(), r.lastModified() == null ? -1 : r.lastModified().toEpochMilli()));
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        } catch (S3Exception e) {
            if (e.statusCode() == 404) return Optional.empty(); // HEAD has no body, so no NoSuchKey code
            throw translate("head " + key, key, e);
        } catch (SdkException e) {
            throw translate("head " + key, key, e);
        }
    }

    @Override
    public void copy(String sourceKey, String destinationKey) {
        CopyObjectRequest request = CopyObjectRequest.builder()
                .sourceBucket(bucket).sourceKey(ObjectKeys.checkKey(sourceKey))
                .destinationBucket(bucket).destinationKey(ObjectKeys.checkKey(destinationKey))
                .metadataDirective(MetadataDirective.COPY).build();
        call("copy " + sourceKey + " -> " + destinationKey, sourceKey, () -> s3.copyObject(request));
    }

    @Override
    public void delete(String key) {
        ObjectKeys.checkKey(key);
        call("delete " + key, null, () -> s3.deleteObject(b -> b.bucket(bucket).key(key)));
    }

    @Override
    public ObjectPage list(String prefix, String pageToken, int maxKeys) {
        String p = ObjectKeys.checkPrefix(prefix);
        ObjectKeys.checkPageSize(maxKeys);
        ListObjectsV2Response r = call("list " + p, null, () -> s3.listObjectsV2(b -> {
            b.bucket(bucket).prefix(p).maxKeys(maxKeys);
            if (pageToken != null) b.continuationToken(pageToken);
        }));
        List<ObjectInfo> objects = new ArrayList<>(r.contents().size());
        for (S3Object o : r.contents()) objects.add(new ObjectInfo(o.key(), o.size(), Map.of(), o.lastModified() == null ? -1 : o.lastModified().toEpochMilli()));
        boolean more = Boolean.TRUE.equals(r.isTruncated()) && r.nextContinuationToken() != null;
        return new ObjectPage(objects, more ? Optional.of(r.nextContinuationToken()) : Optional.empty());
    }

    @Override
    public void close() {
        s3.close();
    }

    private static RequestBody requestBody(ObjectBody body) {
        if (body.file() != null) return RequestBody.fromFile(body.file());
        try (InputStream in = body.open()) {
            return RequestBody.fromBytes(in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private <T> T call(String what, String missingKey, Supplier<T> request) {
        try {
            return request.get();
        } catch (SdkException e) {
            throw translate(what, missingKey, e);
        }
    }

    /** Maps an SDK failure onto the catalogue; {@code missingKey} non-null means 404 is "no such object". */
    private CairnException translate(String what, String missingKey, SdkException e) {
        String where = "S3 " + what + " (bucket " + bucket + ")";
        if (e instanceof S3Exception s3e) {
            int status = s3e.statusCode();
            String detail = s3e.awsErrorDetails() != null ? s3e.awsErrorDetails().errorCode() : String.valueOf(status);
            if (status == 404 && missingKey != null && !"NoSuchBucket".equals(detail)) return ObjectKeys.notFound(missingKey);
            if (status >= 500 || status == 429 || status == 408)
                return new CairnException(ErrorCode.OBJECT_STORE_UNAVAILABLE, where + ": " + status + " " + detail);
            return new CairnException(ErrorCode.OBJECT_STORE_REFUSED, where + ": " + status + " " + detail);
        }
        if (e instanceof SdkClientException)
            return new CairnException(ErrorCode.OBJECT_STORE_UNAVAILABLE, where + ": " + e.getMessage());
        return new CairnException(ErrorCode.OBJECT_STORE_UNAVAILABLE, where + ": " + e);
    }
}
