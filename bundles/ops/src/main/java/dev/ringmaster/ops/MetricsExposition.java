package dev.ringmaster.ops;

import java.io.IOException;
import java.io.OutputStream;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The scrape side of the process-wide {@code MeterRegistry}: everything registered, in the Prometheus
 * text format. Registered as a service beside {@code MeterRegistry} by the ops bundle; the ops bundle's
 * plain HTTP listener serves it on {@code /metrics}, and a listener of another bundle (the
 * authenticated HTTPS one of {@code dev.ringmaster.metrics.auth}) can serve it too.
 */
@ProviderType
public interface MetricsExposition {

    /** The content type of what {@link #writeTo} writes. */
    String contentType();

    /** Writes all meters in the exposition format. */
    void writeTo(OutputStream out) throws IOException;
}
