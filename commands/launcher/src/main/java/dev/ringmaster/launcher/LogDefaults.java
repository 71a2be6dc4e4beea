package dev.ringmaster.launcher;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * How Ringmaster's processes log, set before their first logger is made: slf4j-simple (a bundle in
 * boot/, and a jar beside the framework in processes that embed it) reads these system properties.
 * {@code -D} options, and values a process set before, take precedence.
 */
public final class LogDefaults {

    /** SPI Fly reports every provider it wires at INFO through JUL; only its problems concern users. */
    private static final Logger SPI_FLY_LOG = Logger.getLogger("org.apache.aries.spifly");
    /**
     * Micrometer (1.17) warns once per process when a registry joins a composite that has meters already.
     * The sharder and the webhook do that on purpose: their meters live in a composite from the start, and
     * the ops bundle's registry, which comes and goes with hot swap, joins it later. Micrometer logs through
     * slf4j where its bundle sees it, else through JUL, so both are set.
     */
    private static final String COMPOSITE_REGISTRY = "io.micrometer.core.instrument.composite.CompositeMeterRegistry";
    private static final Logger COMPOSITE_REGISTRY_LOG = Logger.getLogger(COMPOSITE_REGISTRY);

    private LogDefaults() {
    }

    /** Time-stamped lines with short logger names on stderr, without the warnings above and fabric8's about v1alpha1. */
    public static void apply() {
        defaultProperty("org.slf4j.simpleLogger.logFile", "System.err");
        defaultProperty("org.slf4j.simpleLogger.showDateTime", "true");
        defaultProperty("org.slf4j.simpleLogger.dateTimeFormat", "yyyy-MM-dd'T'HH:mm:ss.SSSXXX");
        defaultProperty("org.slf4j.simpleLogger.showShortLogName", "true");
        // fabric8 warns at every start that ClusterRings are v1alpha1, which is the contract's version
        defaultProperty("org.slf4j.simpleLogger.log.io.fabric8.kubernetes.client.dsl.internal.VersionUsageUtils", "error");
        SPI_FLY_LOG.setLevel(Level.WARNING);
        defaultProperty("org.slf4j.simpleLogger.log." + COMPOSITE_REGISTRY, "error");
        COMPOSITE_REGISTRY_LOG.setLevel(Level.SEVERE);
    }

    /** Sets a system property unless it is set already. */
    public static void defaultProperty(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }
}
