package dev.ringmaster.ops.internal;

import dev.ringmaster.ops.MetricsExposition;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process-wide Micrometer registry: a {@link PrometheusMeterRegistry} (embedded privately in this
 * bundle, see bnd.bnd) published as the {@link MeterRegistry} service every bundle records into, with
 * the JVM metrics bound to it. Immediate, so meters survive consumers coming and going; closed with
 * the bundle.
 */
@Component(
        service = {MeterRegistry.class, MetricsExposition.class},
        immediate = true,
        property = PrometheusRegistryComponent.FORMAT_PROPERTY + "=" + PrometheusRegistryComponent.FORMAT)
public final class PrometheusRegistryComponent extends PrometheusMeterRegistry implements MetricsExposition {

    /** Service property naming the exposition format behind the registry. */
    public static final String FORMAT_PROPERTY = "dev.ringmaster.ops.metrics.format";

    public static final String FORMAT = "prometheus";

    private static final Logger LOG = LoggerFactory.getLogger(PrometheusRegistryComponent.class);

    private final List<AutoCloseable> binders = new ArrayList<>();

    public PrometheusRegistryComponent() {
        super(PrometheusConfig.DEFAULT);
    }

    /** Binds the JVM metrics: class loading, memory, garbage collection, threads, processor. */
    @Activate
    public void activate() {
        List<MeterBinder> jvm = List.of(
                new ClassLoaderMetrics(),
                new JvmMemoryMetrics(),
                new JvmGcMetrics(),
                new JvmThreadMetrics(),
                new ProcessorMetrics());
        for (MeterBinder binder : jvm) {
            try {
                binder.bindTo(this);
            } catch (RuntimeException | LinkageError e) {
                // a JVM without the MXBean a binder reads: the other metrics are still worth having
                LOG.warn("JVM metrics {} unavailable: {}", binder.getClass().getSimpleName(), e.toString());
            }
            if (binder instanceof AutoCloseable closeable) {
                binders.add(closeable);
            }
        }
    }

    @Deactivate
    public void deactivate() {
        for (AutoCloseable binder : binders) {
            try {
                binder.close();
            } catch (Exception e) {
                LOG.debug("closing {}", binder, e);
            }
        }
        binders.clear();
        close();
    }

    @Override
    public String contentType() {
        return "text/plain; version=0.0.4; charset=utf-8";
    }

    @Override
    public void writeTo(OutputStream out) throws IOException {
        scrape(out, contentType());
    }
}
