package dev.ringmaster.itests.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.junit.rules.TestWatcher;
import org.junit.runner.Description;

/**
 * Keeps the logs of the processes a test ran when the test fails, whole, in
 * {@code target/failure-logs/<class>.<method>.log}: a failure message carries only what its assertion
 * chose, and a flaky failure seen once in CI must be readable afterwards.
 * Use as {@code @Rule public final FailureLogs logs = new FailureLogs(() -> sharder.err() + shards.logs());}.
 */
public final class FailureLogs extends TestWatcher {

    private static final Path DIRECTORY = Path.of("target", "failure-logs");

    private final Supplier<String> logs;

    public FailureLogs(Supplier<String> logs) {
        this.logs = logs;
    }

    @Override
    protected void failed(Throwable failure, Description test) {
        Path file = DIRECTORY.resolve(test.getClassName() + "." + test.getMethodName() + ".log");
        try {
            Files.createDirectories(DIRECTORY);
            Files.writeString(file, failure + "\n\n" + logs.get());
            System.err.println("Logs of the failed test: " + file.toAbsolutePath());
        } catch (IOException | RuntimeException e) {
            System.err.println("Could not keep the logs of the failed test in " + file + ": " + e);
        }
    }
}
