package dev.ringmaster.metrics.auth;

import dev.ringmaster.ops.MetricsExposition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.osgi.service.metatype.annotations.Option;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The authenticated metrics listener, configured by the PID {@value #PID} (required). With
 * {@code auth = kubernetes} it serves {@code GET /metrics} over HTTPS to clients whose bearer token a
 * TokenReview accepts and whom a SubjectAccessReview allows {@code get} on the non-resource URL
 * {@code /metrics} ({@link KubernetesAuthorizer}); with {@code auth = none} nothing listens here, and the
 * ops bundle's plain listener serves {@code /metrics} (its {@code metricsAuth} key, set by the same
 * flag {@code --metrics-auth}). A configuration change, a new KubernetesClient or a new registry
 * restarts the listener (the component is recreated); cached decisions go with it.
 */
@Component(configurationPid = SecureMetricsComponent.PID, configurationPolicy = ConfigurationPolicy.REQUIRE,
        immediate = true, service = {})
@Designate(ocd = SecureMetricsComponent.Config.class)
public final class SecureMetricsComponent {

    public static final String PID = "dev.ringmaster.metrics";
    static final String AUTH_NONE = "none";
    static final String AUTH_KUBERNETES = "kubernetes";

    private static final Logger LOG = LoggerFactory.getLogger(SecureMetricsComponent.class);
    private static final int REVIEW_THREADS = 4;

    @ObjectClassDefinition(name = "Ringmaster authenticated metrics",
            description = "/metrics over HTTPS for clients the API server authenticates and authorizes")
    public @interface Config {

        @AttributeDefinition(description = "kubernetes: listen, and allow requests by TokenReview and "
                + "SubjectAccessReview; none: do not listen (the plain ops listener serves /metrics)",
                options = {@Option(value = AUTH_NONE), @Option(value = AUTH_KUBERNETES)})
        String auth() default AUTH_NONE;

        @AttributeDefinition(description = "Address to listen on; 0.0.0.0 listens on all interfaces")
        String host() default "0.0.0.0";

        @AttributeDefinition(description = "TCP port; 0 picks a free one", min = "0", max = "65535")
        int port() default 8443;

        @AttributeDefinition(description = "Directory with the certificate and key (the webhook's, --tls-dir)")
        String tlsDir() default "/etc/ringmaster/tls";

        String certFile() default "tls.crt";

        String keyFile() default "tls.key";

        @AttributeDefinition(description = "Seconds an allowed decision is reused for the same token")
        int allowCacheSeconds() default 60;

        @AttributeDefinition(description = "Seconds a 401 or 403 is reused for the same token")
        int denyCacheSeconds() default 10;

        @AttributeDefinition(description = "Most decisions kept; the least recently used go first")
        int cacheSize() default 256;

        @AttributeDefinition(description = "Milliseconds a review may take before the request gets 503")
        int reviewTimeoutMillis() default 5000;

        @AttributeDefinition(description = "Milliseconds between checks of the certificate files")
        int reloadIntervalMillis() default 5000;
    }

    private final ExecutorService reviews;
    private final SecureMetricsServer server;

    @Activate
    public SecureMetricsComponent(Config config, @Reference KubernetesClient client,
            @Reference MetricsExposition metrics) {
        String auth = config.auth().strip().toLowerCase(Locale.ROOT);
        if (!auth.equals(AUTH_KUBERNETES)) {
            if (!auth.equals(AUTH_NONE)) {
                LOG.error("metrics: auth = '{}' is neither {} nor {}; not listening", config.auth(), AUTH_NONE,
                        AUTH_KUBERNETES);
            }
            reviews = null;
            server = null;
            return;
        }
        reviews = new ThreadPoolExecutor(REVIEW_THREADS, REVIEW_THREADS, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(64), new ReviewThreads(), new ThreadPoolExecutor.AbortPolicy());
        ((ThreadPoolExecutor) reviews).allowCoreThreadTimeOut(true);
        KubernetesAuthorizer authorizer = new KubernetesAuthorizer(() -> client,
                new KubernetesAuthorizer.Settings(Duration.ofSeconds(config.allowCacheSeconds()),
                        Duration.ofSeconds(config.denyCacheSeconds()), config.cacheSize(),
                        Duration.ofMillis(config.reviewTimeoutMillis())),
                Clock.systemUTC(), reviews);
        Path tls = Path.of(config.tlsDir());
        server = new SecureMetricsServer(new SecureMetricsServer.Settings(config.host(), config.port(),
                tls.resolve(config.certFile()), tls.resolve(config.keyFile()),
                Duration.ofMillis(config.reloadIntervalMillis())), authorizer, metrics, Clock.systemUTC());
        server.start();
    }

    /** The port listened on, empty while not listening (auth = none, or no valid certificate yet). */
    OptionalInt port() {
        return server == null ? OptionalInt.empty() : server.port();
    }

    @Deactivate
    void deactivate() {
        if (server != null) {
            server.close();
        }
        if (reviews != null) {
            reviews.shutdownNow();
        }
    }

    private static final class ReviewThreads implements java.util.concurrent.ThreadFactory {

        private static final AtomicInteger COUNT = new AtomicInteger();

        @Override
        public Thread newThread(Runnable task) {
            Thread thread = new Thread(task, "ringmaster-metrics-review-" + COUNT.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        }
    }
}
