package dev.ringmaster.webhook.app;

import dev.ringmaster.ops.ReadinessCheck;
import dev.ringmaster.ring.spi.AdmissionHandler;
import dev.ringmaster.webhook.dispatch.HandlerWhiteboard;
import dev.ringmaster.webhook.server.WebhookMetrics;
import dev.ringmaster.webhook.server.WebhookServer;
import dev.ringmaster.webhook.server.WebhookSettings;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Hashtable;
import java.util.Map;
import java.util.Optional;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.Designate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The webhook server as a DS component: a {@link WebhookServer} built from the configuration
 * {@value #PID} (required, so nothing listens unconfigured), with the {@link AdmissionHandler}
 * services bound as a whiteboard and the meter registry bound when there is one. Handlers and the
 * registry come and go without touching the server; a configuration change restarts it.
 *
 * <p>It is the {@value #READINESS_NAME} readiness check: ready while listening with a valid
 * certificate. While listening it also registers a service (objectClass this class's name) carrying
 * the bound port in {@value #PORT_PROPERTY}, which is how tools and tests find a port picked with
 * {@code port=0}.
 */
@Component(configurationPid = WebhookComponent.PID, configurationPolicy = ConfigurationPolicy.REQUIRE,
        immediate = true, service = ReadinessCheck.class)
@Designate(ocd = WebhookConfig.class)
public final class WebhookComponent implements ReadinessCheck {

    public static final String PID = "dev.ringmaster.webhook";
    /** Service property of the listening registration: the bound TCP port (Integer). */
    public static final String PORT_PROPERTY = "dev.ringmaster.webhook.port";
    /** Service property of the listening registration: the configured host (String). */
    public static final String HOST_PROPERTY = "dev.ringmaster.webhook.host";
    static final String READINESS_NAME = "webhook";

    private static final Logger LOG = LoggerFactory.getLogger(WebhookComponent.class);

    private final HandlerWhiteboard handlers = new HandlerWhiteboard();
    private final WebhookMetrics metrics = new WebhookMetrics();

    private BundleContext context;
    // written under this, read by readiness probes without it
    private volatile WebhookSettings settings;
    private volatile WebhookServer server;
    private volatile String configurationProblem;

    @Activate
    synchronized void activate(BundleContext bundleContext, WebhookConfig config) {
        this.context = bundleContext;
        start(config);
    }

    @Modified
    void modified(WebhookConfig config) {
        synchronized (this) {
            WebhookSettings next = settingsOrNull(config);
            if (next != null && next.equals(settings) && server != null) {
                return; // nothing the server uses changed
            }
        }
        stop();
        synchronized (this) {
            start(config);
        }
    }

    @Deactivate
    void deactivate() {
        stop();
    }

    @Reference(service = AdmissionHandler.class, cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY)
    void bindHandler(AdmissionHandler handler, Map<String, Object> properties) {
        handlers.bind(handler, properties);
    }

    /** A handler's properties changed, e.g. its path prefix. */
    void updatedHandler(AdmissionHandler handler, Map<String, Object> properties) {
        handlers.bind(handler, properties);
    }

    void unbindHandler(AdmissionHandler handler) {
        handlers.unbind(handler);
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindMeterRegistry(MeterRegistry registry) {
        metrics.add(registry);
    }

    void unbindMeterRegistry(MeterRegistry registry) {
        metrics.remove(registry);
    }

    @Override
    public String name() {
        return READINESS_NAME;
    }

    @Override
    public Optional<String> problem() {
        String invalid = configurationProblem;
        if (invalid != null) {
            return Optional.of(invalid);
        }
        WebhookServer current = server;
        return current == null ? Optional.of("not started") : current.problem();
    }

    /** Builds and starts the server; an invalid configuration is logged and reported, not thrown. */
    private void start(WebhookConfig config) {
        try {
            settings = settings(config);
        } catch (IllegalArgumentException e) {
            settings = null;
            configurationProblem = "invalid configuration " + PID + ": " + e.getMessage();
            LOG.error("webhook not started: {}", configurationProblem);
            return;
        }
        configurationProblem = null;
        WebhookServer created = new WebhookServer(settings, handlers::table, metrics, Clock.systemUTC(),
                new Publication(settings.host()));
        server = created;
        created.start();
    }

    private void stop() {
        WebhookServer stopping;
        synchronized (this) {
            stopping = server;
            server = null;
        }
        if (stopping != null) {
            stopping.close(); // graceful: may take up to the shutdown timeout
        }
    }

    static WebhookSettings settings(WebhookConfig config) {
        Path directory = Path.of(config.tlsDir());
        return new WebhookSettings(config.host(), config.port(), directory.resolve(config.certFile()),
                directory.resolve(config.keyFile()), config.maxRequestBytes(),
                Duration.ofMillis(config.idleTimeoutMillis()), Duration.ofMillis(config.readTimeoutMillis()),
                Duration.ofMillis(config.reloadIntervalMillis()), Duration.ofMillis(config.shutdownTimeoutMillis()),
                config.maxThreads());
    }

    private static WebhookSettings settingsOrNull(WebhookConfig config) {
        try {
            return settings(config);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** Registers the listening service of one server while its port is open. */
    private final class Publication implements WebhookServer.Listener {

        private final String host;
        private ServiceRegistration<?> registration;

        Publication(String host) {
            this.host = host;
        }

        @Override
        public synchronized void listening(int port) {
            Hashtable<String, Object> properties = new Hashtable<>();
            properties.put(PORT_PROPERTY, port);
            properties.put(HOST_PROPERTY, host);
            registration = context.registerService(WebhookComponent.class.getName(), WebhookComponent.this, properties);
        }

        @Override
        public synchronized void stopped() {
            if (registration != null) {
                try {
                    registration.unregister();
                } catch (IllegalStateException e) {
                    // already gone with the bundle
                }
                registration = null;
            }
        }
    }
}
