package dev.ringmaster.clustertests.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A command run to its end with a time limit: {@code buildah}, {@code kubectl}, {@code ctr}, the
 * scripts of {@code ../shared/k8s}. Standard output and error are captured whole.
 */
public final class Command {

    /** What a command did. */
    public record Result(List<String> command, int exit, String out, String err, Duration took) {

        public boolean ok() {
            return exit == 0;
        }

        /** The command, its exit code and both streams, for failure messages. */
        public String describe() {
            return String.join(" ", command) + "\n  exit " + exit + " after " + took.toMillis() + " ms"
                    + (out.isBlank() ? "" : "\n  stdout:\n" + indent(out))
                    + (err.isBlank() ? "" : "\n  stderr:\n" + indent(err));
        }

        /** This result, or an IllegalStateException describing it if the command failed. */
        public Result orThrow() {
            if (!ok()) {
                throw new IllegalStateException(describe());
            }
            return this;
        }

        /** The last non-blank line of standard output (what the k8s scripts print as their answer). */
        public String lastLine() {
            List<String> lines = out.lines().filter(line -> !line.isBlank()).toList();
            return lines.isEmpty() ? "" : lines.get(lines.size() - 1).strip();
        }

        private static String indent(String text) {
            String tail = text.length() > 6000 ? "…" + text.substring(text.length() - 6000) : text;
            return tail.strip().indent(4);
        }
    }

    /** Readers of the commands' streams: threads of their own (the common pool has one thread on 2 cores). */
    private static final ExecutorService READERS = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "command-output");
        thread.setDaemon(true);
        return thread;
    });

    private Command() {
    }

    /** Runs {@code command} in {@code directory} with {@code env} added to this JVM's environment. */
    public static Result run(Path directory, Map<String, String> env, Duration timeout, List<String> command) {
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile());
        builder.environment().putAll(env);
        long started = System.nanoTime();
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            return new Result(command, 127, "", String.valueOf(e.getMessage()), Duration.ZERO);
        }
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            // nothing to write to it anyway
        }
        CompletableFuture<String> out = drain(process.getInputStream());
        CompletableFuture<String> err = drain(process.getErrorStream());
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                return new Result(command, 124, out.getNow(""), err.getNow("") + "\n(timed out after " + timeout + ")",
                        Duration.ofNanos(System.nanoTime() - started));
            }
            return new Result(command, process.exitValue(), out.get(10, TimeUnit.SECONDS), err.get(10, TimeUnit.SECONDS),
                    Duration.ofNanos(System.nanoTime() - started));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IllegalStateException("interrupted while running " + command, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot read the output of " + command, e);
        }
    }

    private static CompletableFuture<String> drain(InputStream stream) {
        return CompletableFuture.supplyAsync(() -> {
            try (stream) {
                return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, READERS);
    }
}
