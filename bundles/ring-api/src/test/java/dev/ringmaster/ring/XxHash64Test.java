package dev.ringmaster.ring;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class XxHash64Test {

    /** Published XXH64 (seed 0) values; the inputs cover every tail path and the 32-byte stripes. */
    @ParameterizedTest
    @CsvSource({
        "'', ef46db3751d8e999",
        "a, d24ec4f1a98c6e5b",
        "abc, 44bc2cf5ad770999",
        "message digest, 066ed728fceeb3be",
        "abcdefghijklmnopqrstuvwxyz, cfe1f278fa89835c",
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789, aaa46907d3047814",
        "12345678901234567890123456789012345678901234567890123456789012345678901234567890, e04a477f19ee145d",
    })
    void matchesReferenceValues(String input, String expectedHex) {
        assertThat(HexFormat.of().toHexDigits(XxHash64.hash(input))).isEqualTo(expectedHex);
    }

    @Test
    void hashesUtf8() {
        assertThat(XxHash64.hash("ä")).isEqualTo(XxHash64.hash(new byte[] {(byte) 0xC3, (byte) 0xA4}));
    }
}
