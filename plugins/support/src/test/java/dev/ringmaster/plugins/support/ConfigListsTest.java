package dev.ringmaster.plugins.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ConfigListsTest {

    @Test
    void aStringIsACommaSeparatedList() {
        assertThat(ConfigLists.strings(" a, b ,,c ,a")).containsExactly("a", "b", "c");
        assertThat(ConfigLists.strings("")).isEmpty();
    }

    @Test
    void typedArraysAndCollectionsKeepTheirElements() {
        assertThat(ConfigLists.strings(new String[] {"cn=x,ou=y", " b ", " "})).containsExactly("cn=x,ou=y", "b");
        assertThat(ConfigLists.strings(List.of("a", "a", "b"))).containsExactly("a", "b");
    }

    @Test
    void nothingIsAnEmptyList() {
        assertThat(ConfigLists.strings(null)).isEmpty();
        assertThat(ConfigLists.strings(new String[0])).isEmpty();
    }
}
