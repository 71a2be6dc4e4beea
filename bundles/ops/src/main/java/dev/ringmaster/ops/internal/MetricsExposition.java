package dev.ringmaster.ops.internal;

import java.io.IOException;
import java.io.OutputStream;

/**
 * The scrape side of the registry, for the HTTP server of this bundle. Registered as a service
 * beside {@code MeterRegistry} by {@link PrometheusRegistryComponent}; private to the bundle.
 */
public interface MetricsExposition {

    /** The content type of what {@link #writeTo} writes. */
    String contentType();

    /** Writes all meters in the exposition format. */
    void writeTo(OutputStream out) throws IOException;
}
