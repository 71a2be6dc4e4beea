package dev.ringmaster.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.bench.sharder.ApiServerWriteRate;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** A bench main's command line, as a process: {@code --help} and usage errors end it before it starts anything. */
class BenchArgsTest {

    private record Exit(int code, String out, String err) {
    }

    private static Exit run(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), ApiServerWriteRate.class.getName()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).start();
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(process.getErrorStream()));
        String out = read(process.getInputStream());
        return new Exit(process.waitFor(), out, err.join());
    }

    private static String read(InputStream stream) {
        try {
            return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void helpListsTheFlagsOnStdout() throws Exception {
        Exit help = run("--objects=5", "-h");
        assertThat(help.code()).isZero();
        assertThat(help.out()).startsWith("usage: java -cp bench/target/benchmarks.jar " + ApiServerWriteRate.class.getName()
                + " [--objects VALUE] [--rounds VALUE] [--in-flight VALUE]");
        assertThat(help.err()).isEmpty();
    }

    @Test
    void aUsageErrorIsOneLineNamingTheFlagAndExitsTwo() throws Exception {
        Exit unknown = run("--objects", "5", "--frobnicate", "1");
        assertThat(unknown.code()).isEqualTo(2);
        assertThat(unknown.err()).isEqualTo("ApiServerWriteRate: unknown flag --frobnicate (see ApiServerWriteRate --help)"
                + System.lineSeparator());
        assertThat(unknown.out()).isEmpty();

        Exit badNumber = run("--objects=5", "--rounds=two");
        assertThat(badNumber.code()).isEqualTo(2);
        assertThat(badNumber.err()).as("--objects=5 was taken").isEqualTo("ApiServerWriteRate: --rounds must be a number,"
                + " not 'two' (see ApiServerWriteRate --help)" + System.lineSeparator());
    }
}
