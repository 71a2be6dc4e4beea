package dev.ringmaster.sandbox;

import dev.ringmaster.flags.Flags;
import dev.ringmaster.flags.StopOnSignal;
import dev.ringmaster.flags.UsageException;
import dev.ringmaster.launcher.LaunchException;
import dev.ringmaster.launcher.LogDefaults;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code bin/ringmaster sandbox}: the whole system with no cluster, in one JVM. The Felix framework
 * runs the distribution's bundles as {@code run} does; the embedded API server (Vert.x) and the
 * example shards run on this plain class path beside it ({@code lib/} and {@code lib/sandbox/}).
 *
 * <p>Exit codes: 0 when the run (with {@code --exit}) ended with every object on an available shard
 * and no object reconciled by two shards at overlapping times, or after a signal without
 * {@code --exit}; 1 when it did not, a scenario timed out or the sandbox could not start; 2 for bad
 * arguments (one line on stderr).
 */
public final class SandboxMain {

    static final int OK = 0;
    static final int FAILED = 1;
    static final int USAGE_ERROR = Flags.USAGE_ERROR;
    private static final String NAME = "ringmaster sandbox";
    /** How long a signal waits for the sandbox to take itself down. */
    private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(60);

    static {
        // stdout is the live view or the JSON: logs go to stderr, and only warnings, with the time of day,
        // unless RINGMASTER_JAVA_OPTS says otherwise; the framework's slf4j reads the same properties
        LogDefaults.defaultProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        LogDefaults.defaultProperty("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");
        LogDefaults.apply();
    }

    private final Path home;
    private final PrintStream out;
    private final PrintStream err;
    private final boolean terminal;

    SandboxMain(Path home, PrintStream out, PrintStream err, boolean terminal) {
        this.home = home;
        this.out = out;
        this.err = err;
        this.terminal = terminal;
    }

    public static void main(String[] args) {
        String home = System.getProperty("ringmaster.home");
        if (home == null) {
            System.err.println(NAME + ": the system property ringmaster.home is not set; start via bin/ringmaster sandbox");
            System.exit(USAGE_ERROR);
        }
        // after a signal, the sandbox stops the sharder and the shards before the JVM ends
        StopOnSignal.run("sandbox-shutdown", SHUTDOWN_TIMEOUT, stop -> new SandboxMain(Path.of(home), System.out,
                System.err, System.console() != null).run(Arrays.asList(args), stop));
    }

    /**
     * Runs the command line.
     *
     * @param stop counted down by Ctrl-C or SIGTERM
     * @return the exit code
     */
    int run(List<String> args, CountDownLatch stop) {
        if (Flags.wantsHelp(args)) {
            out.println(SandboxOptions.USAGE);
            return OK;
        }
        SandboxOptions options;
        try {
            options = SandboxOptions.parse(args);
        } catch (UsageException e) {
            return e.report(NAME, err);
        }
        long startNanos = System.nanoTime();
        LiveView view = new LiveView(out, options.liveView(), terminal, terminal ? terminalWidth() : 0,
                () -> TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
        view.event(NAME + ": " + options.shards() + " shard(s), " + options.objects() + " objects"
                + options.scenario().map(scenario -> ", scenario " + scenario).orElse(""));
        try (Sandbox sandbox = new Sandbox(home, options, view, () -> stop.getCount() == 0, startNanos)) {
            Optional<String> error = Optional.empty();
            boolean started = false;
            try {
                sandbox.start(err);
                started = true;
                if (options.scenario().isPresent()) {
                    sandbox.run(options.scenario().get());
                }
            } catch (SandboxException.Stopped e) {
                sandbox.stopping();
                return FAILED;
            } catch (SandboxException e) {
                error = Optional.of(e.getMessage());
            } catch (LaunchException | IOException | RuntimeException e) {
                error = Optional.of((started ? "" : "cannot start: ") + message(e));
            }
            if (!options.exit()) {
                error.ifPresent(message -> err.println(NAME + ": " + message));
                if (!started) {
                    return FAILED;
                }
                // after a failed scenario too: what the sandbox shows is worth a look
                sandbox.runUntilStopped(error.isPresent() ? "running after a failed scenario; stop with Ctrl-C"
                        : "running; stop with Ctrl-C");
                return error.isPresent() ? FAILED : OK;
            }
            Result result = sandbox.result(options.scenario(), error);
            if (options.json()) {
                out.println(result.toJson());
            } else {
                out.print(result.toText());
            }
            out.flush();
            if (!result.ok()) {
                err.println(NAME + ": " + result.problem().orElse("failed")
                        + sandbox.firstOverlap().map(pair -> "; first overlap: " + pair).orElse(""));
                return FAILED;
            }
            return OK;
        }
    }

    private static String message(Exception e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        if (root != e && root.getMessage() != null && !message.contains(root.getMessage())) {
            message += " (" + root.getMessage() + ")";
        }
        return message.replaceAll("\\s+", " ").strip();
    }

    /** The terminal's columns as {@code stty} reports them; 0 if it cannot tell. */
    private static int terminalWidth() {
        try {
            Process stty = new ProcessBuilder("sh", "-c", "stty size < /dev/tty").redirectErrorStream(true).start();
            String size = new String(stty.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
            if (stty.waitFor(2, TimeUnit.SECONDS) && size.matches("\\d+ \\d+")) {
                return Integer.parseInt(size.substring(size.indexOf(' ') + 1));
            }
        } catch (IOException e) {
            // no stty: lines are kept whole
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }
}
