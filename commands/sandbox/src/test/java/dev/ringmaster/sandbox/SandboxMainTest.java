package dev.ringmaster.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** What {@code ringmaster sandbox} prints and returns before it starts anything. */
class SandboxMainTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        SandboxMain main = new SandboxMain(Path.of("/nonexistent/ringmaster"), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), false);
        return main.run(List.of(args), new CountDownLatch(1));
    }

    @Test
    void helpPrintsTheUsageOnStdout() {
        assertThat(run("--shards=2", "-h")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo(SandboxOptions.USAGE + System.lineSeparator());
        assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void aUsageErrorIsOneLineNamingTheFlagAndExitsTwo() {
        assertThat(run("--shards=0")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("ringmaster sandbox: --shards must be a whole number"
                + " from 1 to 20, not '0' (see ringmaster sandbox --help)" + System.lineSeparator());
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    }
}
