package dev.ringmaster.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The launcher on an empty distribution: a real Felix framework with no bundles. */
class MainTest {

    @TempDir
    Path home;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeEach
    void emptyDistribution() throws Exception {
        for (String folder : FelixRuntime.BUNDLE_FOLDERS) {
            Files.createDirectories(home.resolve(folder));
        }
    }

    private int run(String... args) {
        return new Main(home, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).run(args);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void withoutArgumentsItPrintsUsageAndFails() {
        assertThat(run()).isEqualTo(2);
        assertThat(err()).startsWith("usage: ringmaster COMMAND");
    }

    @Test
    void helpGoesToStdoutAndSucceeds() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("simulate", "sandbox");
    }

    @Test
    void runExplainsItsFlagsAndRejectsBadOnesBeforeStartingAnything() {
        assertThat(run("run", "--help")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("usage: ringmaster run").contains("--webhook-url");
        assertThat(run("run", "--kubeconfig")).isEqualTo(2);
        assertThat(err()).isEqualTo("ringmaster run: --kubeconfig needs a value (see ringmaster run --help)"
                + System.lineSeparator());
    }

    @Test
    void runTakesValuesAfterAnEqualsSignAndHelpAnywhere() {
        assertThat(run("run", "--namespace=ops", "-h")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo(RunOptions.USAGE + System.lineSeparator());
        assertThat(run("run", "--metrics-auth=basic")).isEqualTo(2);
        assertThat(err()).isEqualTo("ringmaster run: --metrics-auth must be none or kubernetes, not basic"
                + " (see ringmaster run --help)" + System.lineSeparator());
    }

    @Test
    void anUnknownCommandIsAOneLineError() {
        assertThat(run("frobnicate")).isEqualTo(2);
        assertThat(err()).isEqualTo("ringmaster: unknown command 'frobnicate'; commands: " + System.lineSeparator());
    }

    @Test
    void aJarThatIsNoBundleIsSkippedWithAReason() throws Exception {
        Files.writeString(home.resolve("deploy").resolve("broken.jar"), "not a zip");
        assertThat(run("simulate")).isEqualTo(2);
        assertThat(err()).contains("ringmaster: skipping deploy/broken.jar:")
                .contains("ringmaster: unknown command 'simulate'");
    }
}
