package dev.ringmaster.itests.support;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code bin/ringmaster} (or another script of {@code bin/}) of a distribution as an operator
 * would: a process of its own.
 */
public final class Cli {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private Cli() {
    }

    /** Runs a command to its end. */
    public static Result run(Path home, List<String> args) {
        return runScript(home, "ringmaster", args);
    }

    /** Runs a command to its end, which must come within {@code timeout}. */
    public static Result run(Path home, List<String> args, Duration timeout) {
        return runScript(home, "ringmaster", args, timeout);
    }

    /** Runs {@code bin/<script>} to its end. */
    public static Result runScript(Path home, String script, List<String> args) {
        return runScript(home, script, args, TIMEOUT);
    }

    private static Result runScript(Path home, String script, List<String> args, Duration timeout) {
        Started started = start(home, script, args, ProcessBuilder.Redirect.from(new File("/dev/null")));
        try {
            if (!started.process().waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
                started.process().destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                fail(started.command() + " did not finish within " + timeout.toSeconds() + " s; stderr: "
                        + started.err());
            }
            return started.result();
        } catch (InterruptedException e) {
            started.process().destroyForcibly();
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while running " + started.command(), e);
        }
    }

    /** Starts a command and returns at once, e.g. {@code run}, which lasts until it is stopped. */
    public static Started start(Path home, List<String> args) {
        return start(home, "ringmaster", args, ProcessBuilder.Redirect.from(new File("/dev/null")));
    }

    /** Starts {@code bin/<script>} and returns at once. */
    public static Started startScript(Path home, String script, List<String> args) {
        return start(home, script, args, ProcessBuilder.Redirect.from(new File("/dev/null")));
    }

    /** Starts a command whose standard input the test writes, through {@link Process#getOutputStream()}. */
    public static Started startWithInput(Path home, List<String> args, Map<String, String> environment) {
        return start(home, "ringmaster", args, ProcessBuilder.Redirect.PIPE, environment);
    }

    private static Started start(Path home, String script, List<String> args, ProcessBuilder.Redirect input) {
        return start(home, script, args, input, Map.of());
    }

    private static Started start(Path home, String script, List<String> args, ProcessBuilder.Redirect input,
            Map<String, String> environment) {
        List<String> command = new ArrayList<>();
        command.add(home.resolve("bin").resolve(script).toString());
        command.addAll(args);
        Path output = Distribution.work("cli");
        try {
            Path stdout = Files.createTempFile(output, "stdout-", ".txt");
            Path stderr = Files.createTempFile(output, "stderr-", ".txt");
            ProcessBuilder builder = new ProcessBuilder(command)
                    .redirectInput(input)
                    .redirectOutput(stdout.toFile())
                    .redirectError(stderr.toFile());
            // the JDK running the tests, whatever JAVA_HOME the build was started with
            builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
            builder.environment().keySet().removeIf(name -> name.startsWith("RINGMASTER_"));
            builder.environment().putAll(environment);
            return new Started(command, builder.start(), stdout, stderr);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Kills each of {@code started} that was started at all (SIGKILL) and waits until it is gone: a test's clean-up. */
    public static void kill(Started... started) throws InterruptedException {
        for (Started one : started) {
            if (one != null) {
                one.process().destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /** A started command; its output goes to files, readable at any time. */
    public record Started(List<String> command, Process process, Path stdout, Path stderr) {

        public String out() {
            return read(stdout);
        }

        public String err() {
            return read(stderr);
        }

        /** Sends a signal such as {@code STOP}, {@code CONT} or {@code TERM} to the process (bin/ scripts exec Java). */
        public void signal(String name) {
            try {
                Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
                assertEquals("kill -" + name + " " + process.pid(), 0, kill.waitFor());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while signalling " + command, e);
            }
        }

        /** The result of a command that has ended. */
        public Result result() {
            return new Result(command, process.exitValue(), out(), err());
        }

        private static String read(Path file) {
            try {
                return Files.readString(file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    public record Result(List<String> command, int exit, String out, String err) {

        public void assertSucceeded() {
            assertEquals(this.toString(), 0, exit);
            assertEquals(this.toString(), "", err);
        }

        /** Exit code 2 and exactly one line on stderr, which names the command and says what is wrong. */
        public void assertUsageError(String message) {
            assertEquals(this.toString(), 2, exit);
            List<String> lines = err.lines().toList();
            assertEquals(this.toString(), 1, lines.size());
            assertTrue(this.toString(), lines.get(0).startsWith("ringmaster " + command.get(1) + ":"));
            assertTrue(this.toString(), lines.get(0).contains(message));
            assertEquals(this.toString(), "", out);
        }

        @Override
        public String toString() {
            return String.join(" ", command) + " -> exit " + exit + "\nstdout:\n" + out + "\nstderr:\n" + err;
        }
    }
}
