package dev.ringmaster.ring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.testing.ApiBaseline;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Fails when an exported package changes incompatibly with its version (see docs/development.md). */
class ApiBaselineTest {

    @Test
    void exportedPackageVersionsMatchTheirChanges() throws Exception {
        assertThat(ApiBaseline.mismatches(Path.of("target/classes"), ApiBaseline.defaultBaselineFile())).isEmpty();
    }
}
