package dev.ringmaster.examples.checksum;

import io.fabric8.kubernetes.api.model.ConfigMap;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * The checksums the controller keeps for a ConfigMap: for every key of {@code data} the SHA-256 of
 * the value's UTF-8 bytes, for every key of {@code binaryData} the SHA-256 of the decoded bytes, as
 * lower-case hex. The Secret {@code checksums-<configmap>} holds them under the same keys.
 */
public final class Checksums {

    private Checksums() {
    }

    /** Key to hex SHA-256 of the value, for every key of the ConfigMap's data and binary data, sorted. */
    public static Map<String, String> of(ConfigMap configMap) {
        Map<String, String> checksums = new TreeMap<>();
        if (configMap.getData() != null) {
            configMap.getData().forEach((key, value) ->
                    checksums.put(key, sha256(value == null ? new byte[0] : value.getBytes(StandardCharsets.UTF_8))));
        }
        if (configMap.getBinaryData() != null) {
            configMap.getBinaryData().forEach((key, value) ->
                    checksums.put(key, sha256(value == null ? new byte[0] : Base64.getDecoder().decode(value))));
        }
        return checksums;
    }

    /** The checksums as a Secret's {@code data}: every value base64-encoded. */
    public static Map<String, String> toSecretData(Map<String, String> checksums) {
        Map<String, String> data = new TreeMap<>();
        checksums.forEach((key, value) ->
                data.put(key, Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8))));
        return data;
    }

    /**
     * A Secret's {@code data} decoded back to checksums; {@code null} counts as empty, a value that is
     * not base64 as an empty checksum (so it never matches).
     */
    public static Map<String, String> fromSecretData(Map<String, String> data) {
        Map<String, String> checksums = new TreeMap<>();
        if (data != null) {
            data.forEach((key, value) -> checksums.put(key, decode(value)));
        }
        return checksums;
    }

    private static String decode(String value) {
        if (value == null) {
            return "";
        }
        try {
            return new String(Base64.getDecoder().decode(value), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return "";
        }
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
