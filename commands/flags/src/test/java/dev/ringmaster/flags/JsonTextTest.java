package dev.ringmaster.flags;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JsonTextTest {

    @Test
    void jsonStringsAreEscaped() {
        assertThat(JsonText.quote("a\"b\\c\nd\u0001")).isEqualTo("\"a\\\"b\\\\c\\nd\\u0001\"");
    }
}
