package dev.ringmaster.sharder.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalInt;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ShardWeightTest {

    @ParameterizedTest
    @CsvSource({"1, 1", "7, 7", "1000, 1000", "007, 7"})
    void acceptsPositiveIntegersUpToTheMaximum(String value, int weight) {
        assertThat(ShardWeight.parse(value)).isEqualTo(OptionalInt.of(weight));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "0", "1001", "-3", "+3", " 3", "3 ", "2.5", "1e3", "abc", "99999999999999999999"})
    void rejectsEverythingElse(String value) {
        assertThat(ShardWeight.parse(value)).isEmpty();
    }
}
