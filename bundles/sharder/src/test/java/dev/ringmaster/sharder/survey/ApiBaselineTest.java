package dev.ringmaster.sharder.survey;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.testing.ApiBaseline;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Fails when the sharder's one exported package, {@code dev.ringmaster.sharder.survey}, changes
 * incompatibly with its version (docs/development.md, "API versioning and the baseline check").
 */
class ApiBaselineTest {

    @Test
    void exportedPackageVersionsMatchTheirChanges() throws Exception {
        assertThat(ApiBaseline.mismatches(Path.of("target/classes"), ApiBaseline.defaultBaselineFile())).isEmpty();
    }
}
