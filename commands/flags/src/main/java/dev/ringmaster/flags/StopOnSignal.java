package dev.ringmaster.flags;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.ToIntFunction;

/** The {@code main} of a command that runs until it is done or stopped by SIGTERM (or Ctrl-C). */
public final class StopOnSignal {

    private StopOnSignal() {
    }

    /**
     * Runs {@code command} with a latch that a signal counts down. After a signal the shutdown hook
     * (thread {@code threadName}) waits up to {@code grace} for the command to return, as the JVM ends
     * when the hooks are done: the command takes itself down first. Without a signal the JVM exits with
     * the command's exit code, even where threads (HTTP clients, Vert.x) are left behind.
     */
    public static void run(String threadName, Duration grace, ToIntFunction<CountDownLatch> command) {
        CountDownLatch stop = new CountDownLatch(1);
        CountDownLatch finished = new CountDownLatch(1);
        AtomicBoolean signalled = new AtomicBoolean();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            signalled.set(true);
            stop.countDown();
            try {
                finished.await(grace.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, threadName));
        int code;
        try {
            code = command.applyAsInt(stop);
        } finally {
            finished.countDown();
        }
        if (!signalled.get()) {
            System.exit(code);
        }
    }
}
