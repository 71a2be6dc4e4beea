package dev.ringmaster.examples.checksum;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChecksumsTest {

    /** SHA-256 test vectors: "" and "abc" (FIPS 180-2). */
    private static final String EMPTY = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    private static final String ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

    @Test
    void everyKeyOfDataAndBinaryDataGetsTheSha256OfItsValue() {
        ConfigMap configMap = new ConfigMapBuilder()
                .addToData("text", "abc")
                .addToData("empty", "")
                .addToBinaryData("blob", Base64.getEncoder().encodeToString("abc".getBytes(StandardCharsets.UTF_8)))
                .build();

        assertThat(Checksums.of(configMap)).containsExactly(
                Map.entry("blob", ABC), Map.entry("empty", EMPTY), Map.entry("text", ABC));
    }

    @Test
    void aConfigMapWithoutDataHasNoChecksums() {
        assertThat(Checksums.of(new ConfigMap())).isEmpty();
    }

    @Test
    void secretDataIsBase64AndDecodesBack() {
        Map<String, String> checksums = Map.of("text", ABC);
        Map<String, String> data = Checksums.toSecretData(checksums);

        assertThat(data).containsExactly(
                Map.entry("text", Base64.getEncoder().encodeToString(ABC.getBytes(StandardCharsets.UTF_8))));
        assertThat(Checksums.fromSecretData(data)).isEqualTo(checksums);
        assertThat(Checksums.fromSecretData(null)).isEmpty();
        assertThat(Checksums.fromSecretData(Map.of("text", "not base64!"))).containsExactly(Map.entry("text", ""));
    }
}
