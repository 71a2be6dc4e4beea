package dev.ringmaster.examples.checksum;

import dev.ringmaster.flags.Durations;
import io.fabric8.kubernetes.api.model.ConfigMap;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The work a reconcile of a ConfigMap costs before it does its own, for load experiments (issue #33):
 * the annotation {@value #ANNOTATION} holds a duration ({@code 250ms}, {@code 2s}, as {@link Durations}
 * reads it), and every reconcile of that ConfigMap spends that long first, as {@link Mode} says. With
 * a periodic resync ({@code --resync}) an object's load is its cost over the resync period.
 *
 * <p>A value that is no duration counts as no cost and is logged once per object and value, never
 * failing the reconcile. Thread-safe: JOSDK reconciles in parallel.
 */
public final class Cost {

    /** The annotation of a ConfigMap that says what each of its reconciles costs. */
    public static final String ANNOTATION = "checksums.ringmaster.dev/cost";

    /** How a cost is spent ({@code --cost-as}). */
    public enum Mode {
        /**
         * Sleeping: the reconcile takes that long and uses no CPU, so many shards can share a small
         * machine; busy time measured as wall time counts it all.
         */
        WAIT,
        /**
         * Computing (SHA-256 over a buffer, again and again) until the reconciling thread has used that
         * much CPU time: a real CPU cost, one core busy; on a loaded machine it takes longer than the cost.
         */
        CPU;

        /** {@code wait} or {@code cpu}, as the flag spells it. */
        public String flagValue() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The mode the flag value names. */
        public static Mode ofFlagValue(String value) {
            for (Mode mode : values()) {
                if (mode.flagValue().equals(value)) {
                    return mode;
                }
            }
            throw new IllegalArgumentException("'" + value + "' is not a cost mode: use wait or cpu");
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(Cost.class);
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final byte[] WORK = "checksums.ringmaster.dev: work to burn".repeat(64).getBytes(StandardCharsets.UTF_8);

    private final Mode mode;
    private final Consumer<String> warnings;
    /** {@code namespace/name} of the objects whose annotation was reported invalid, to the value reported. */
    private final Map<String, String> reported = new ConcurrentHashMap<>();
    /** Results of the computation, so that it is not optimised away. */
    private volatile byte sink;

    public Cost(Mode mode) {
        this(mode, LOG::warn);
    }

    /** Warnings go to {@code warnings} instead of the log (tests). */
    Cost(Mode mode, Consumer<String> warnings) {
        this.mode = Objects.requireNonNull(mode, "mode");
        this.warnings = Objects.requireNonNull(warnings, "warnings");
    }

    public Mode mode() {
        return mode;
    }

    /**
     * The cost of each reconcile of {@code configMap}: its annotation's duration; zero without one, or
     * for a value that is no duration (logged the first time per object and value).
     */
    public Duration of(ConfigMap configMap) {
        Map<String, String> annotations = configMap.getMetadata().getAnnotations();
        String value = annotations == null ? null : annotations.get(ANNOTATION);
        String object = configMap.getMetadata().getNamespace() + "/" + configMap.getMetadata().getName();
        if (value == null) {
            reported.remove(object);
            return Duration.ZERO;
        }
        try {
            Duration cost = Durations.parse(value.strip());
            reported.remove(object);
            return cost;
        } catch (IllegalArgumentException e) {
            if (!value.equals(reported.put(object, value))) {
                warnings.accept("ConfigMap " + object + ": annotation " + ANNOTATION + ": " + e.getMessage()
                        + "; its reconciles cost nothing");
            }
            return Duration.ZERO;
        }
    }

    /**
     * Spends {@code configMap}'s cost ({@link #of}) on the calling thread.
     *
     * @return the cost spent (less if the thread was interrupted: its flag is then set again)
     */
    public Duration spend(ConfigMap configMap) {
        Duration cost = of(configMap);
        spend(cost);
        return cost;
    }

    /**
     * Spends {@code cost} on the calling thread as the mode says; returns early, with the thread's
     * interrupt flag set, if the thread is interrupted.
     */
    public void spend(Duration cost) {
        if (cost.isZero() || cost.isNegative()) {
            return;
        }
        if (mode == Mode.WAIT) {
            // parked to the microsecond: Thread.sleep rounds a sub-millisecond cost up to a whole millisecond
            long deadline = System.nanoTime() + cost.toNanos();
            for (long left = cost.toNanos(); left > 0 && !Thread.currentThread().isInterrupted();
                    left = deadline - System.nanoTime()) {
                LockSupport.parkNanos(left);
            }
            return;
        }
        burn(cost.toNanos());
    }

    /**
     * Computes until the thread has used {@code nanos} of CPU time; where the JVM cannot measure a
     * thread's CPU time, until that much wall time has passed.
     */
    private void burn(long nanos) {
        boolean cpuTime = THREADS.isCurrentThreadCpuTimeSupported() && THREADS.isThreadCpuTimeEnabled();
        long start = cpuTime ? THREADS.getCurrentThreadCpuTime() : System.nanoTime();
        MessageDigest digest = sha256();
        byte[] block = WORK.clone();
        while ((cpuTime ? THREADS.getCurrentThreadCpuTime() : System.nanoTime()) - start < nanos) {
            if (Thread.currentThread().isInterrupted()) {
                return;
            }
            for (int i = 0; i < 16; i++) {
                digest.update(block);
                byte[] hash = digest.digest();
                block[i] ^= hash[0];
            }
        }
        sink = block[0];
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
