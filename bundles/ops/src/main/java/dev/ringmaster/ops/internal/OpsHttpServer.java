package dev.ringmaster.ops.internal;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.ringmaster.ops.MetricsExposition;
import dev.ringmaster.ops.ReadinessCheck;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Hashtable;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
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
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plain HTTP for operators and Kubernetes probes, on the JDK's {@code com.sun.net.httpserver}:
 * {@code GET /metrics} (Prometheus text), {@code GET /healthz} (200 while the process runs) and
 * {@code GET /readyz} (200 when no {@link ReadinessCheck} service reports a problem, else 503 with
 * one line {@code name: problem} per failing check).
 *
 * <p>With {@code metricsAuth = kubernetes} this listener does not serve {@code /metrics} (404): in a
 * cluster the bundle {@code dev.ringmaster.metrics.auth} serves it over HTTPS to clients the API server
 * authenticates and authorizes, and this port keeps only the kubelet's probes.
 *
 * <p>Configured by the PID {@value #PID}, required: without a configuration nothing listens (so
 * commands such as {@code simulate} open no port). A configuration change of host or port restarts
 * the listener; a listener that cannot be opened (port in use, unknown host) is logged as an error,
 * the component stays active and tries again on the next configuration change. While listening, the
 * component registers a service carrying the bound address in {@value #PORT_PROPERTY} and
 * {@value #HOST_PROPERTY}, which is how tests and tools find a port chosen with {@code port=0}.
 */
@Component(
        configurationPid = OpsHttpServer.PID,
        configurationPolicy = ConfigurationPolicy.REQUIRE,
        immediate = true,
        service = {})
@Designate(ocd = OpsHttpServer.Config.class)
public final class OpsHttpServer {

    public static final String PID = "dev.ringmaster.ops.http";

    /** Service property of the listening registration: the bound TCP port (Integer). */
    public static final String PORT_PROPERTY = "dev.ringmaster.ops.http.port";

    /** Service property of the listening registration: the configured host (String). */
    public static final String HOST_PROPERTY = "dev.ringmaster.ops.http.host";

    /** {@link Config#metricsAuth()}: this listener serves {@code /metrics} to anyone who reaches it. */
    public static final String METRICS_AUTH_NONE = "none";

    /**
     * {@link Config#metricsAuth()}: this listener does not serve {@code /metrics}; the HTTPS listener of
     * {@value #METRICS_AUTH_PID} does, to clients the API server authenticates and authorizes.
     */
    public static final String METRICS_AUTH_KUBERNETES = "kubernetes";

    /** The configuration of the authenticated metrics listener (bundle dev.ringmaster.metrics.auth). */
    static final String METRICS_AUTH_PID = "dev.ringmaster.metrics";

    static final String METRICS = "/metrics";
    static final String HEALTHZ = "/healthz";
    static final String READYZ = "/readyz";

    private static final String TEXT = "text/plain; charset=utf-8";
    private static final int HANDLER_THREADS = 2;
    private static final Logger LOG = LoggerFactory.getLogger(OpsHttpServer.class);

    @ObjectClassDefinition(
            name = "Ringmaster ops HTTP",
            description = "Plain HTTP listener for /metrics, /healthz and /readyz")
    public @interface Config {

        @AttributeDefinition(description = "Address to listen on; 0.0.0.0 listens on all interfaces")
        String host() default "0.0.0.0";

        @AttributeDefinition(
                description = "TCP port; 0 picks a free port, published in the service property "
                        + PORT_PROPERTY,
                min = "0",
                max = "65535")
        int port() default 8080;

        @AttributeDefinition(
                description = "none: GET /metrics here, without authentication; kubernetes: not here, the "
                        + "authenticated HTTPS listener (PID " + METRICS_AUTH_PID + ") serves it",
                options = {
                    @org.osgi.service.metatype.annotations.Option(value = METRICS_AUTH_NONE),
                    @org.osgi.service.metatype.annotations.Option(value = METRICS_AUTH_KUBERNETES)
                })
        String metricsAuth() default METRICS_AUTH_NONE;
    }

    private final BundleContext context;
    private final MetricsExposition metrics;
    private final List<ReadinessCheck> checks = new CopyOnWriteArrayList<>();

    private Listener listener;
    private String requestedAddress;
    private volatile String failure;
    /** Whether {@code /metrics} is served here (metricsAuth = none); read by the handler threads. */
    private volatile boolean servesMetrics = true;

    @Activate
    public OpsHttpServer(BundleContext context, @Reference(name = "metrics") MetricsExposition metrics) {
        this.context = context;
        this.metrics = metrics;
    }

    /** For tests: the component outside a framework, so no service carries the port. */
    OpsHttpServer(MetricsExposition metrics) {
        this(null, metrics);
    }

    /** Starts listening as configured; never throws for a listener that cannot be opened. */
    @Activate
    synchronized void activate(Config config) {
        servesMetrics = servesMetrics(config);
        listen(config);
    }

    @Modified
    synchronized void modified(Config config) {
        servesMetrics = servesMetrics(config);
        String address = address(config);
        if (listener != null && address.equals(requestedAddress)) {
            return; // nothing this component uses changed
        }
        stop();
        listen(config);
    }

    @Deactivate
    synchronized void deactivate() {
        stop();
    }

    @Reference(
            cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY,
            unbind = "unbindReadinessCheck")
    void bindReadinessCheck(ReadinessCheck check) {
        checks.add(check);
    }

    void unbindReadinessCheck(ReadinessCheck check) {
        synchronized (checks) {
            for (int i = 0; i < checks.size(); i++) {
                if (checks.get(i) == check) {
                    checks.remove(i);
                    return;
                }
            }
        }
    }

    /** The port listened on, empty while not listening. */
    synchronized OptionalInt port() {
        return listener == null ? OptionalInt.empty() : OptionalInt.of(listener.port());
    }

    /** Why the last attempt to listen failed, empty while listening (or after deactivation). */
    Optional<String> failure() {
        return Optional.ofNullable(failure);
    }

    private void listen(Config config) {
        requestedAddress = address(config);
        failure = null;
        HttpServer server;
        try {
            InetSocketAddress address = new InetSocketAddress(config.host(), config.port());
            if (address.isUnresolved()) {
                throw new IOException("unknown host");
            }
            server = HttpServer.create(address, 0);
        } catch (IOException | RuntimeException e) {
            failure = "cannot listen on " + requestedAddress + ": " + describe(e)
                    + "; /metrics, /healthz and /readyz are unavailable until the configuration "
                    + PID + " changes";
            LOG.error("ops HTTP server {}", failure);
            return;
        }
        ExecutorService executor = Executors.newFixedThreadPool(HANDLER_THREADS, new HandlerThreads());
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
        int port = server.getAddress().getPort();
        listener = new Listener(server, executor, register(config.host(), port));
        LOG.info("ops HTTP server listening on {}:{} ({}{}, {})", config.host(), port,
                servesMetrics ? METRICS + ", " : "", HEALTHZ, READYZ);
    }

    private void stop() {
        failure = null;
        if (listener == null) {
            return;
        }
        Listener stopping = listener;
        listener = null;
        if (stopping.registration() != null) {
            try {
                stopping.registration().unregister();
            } catch (IllegalStateException e) {
                // already gone with the bundle
            }
        }
        stopping.server().stop(0);
        stopping.executor().shutdownNow();
        LOG.info("ops HTTP server on port {} stopped", stopping.port());
    }

    private ServiceRegistration<?> register(String host, int port) {
        if (context == null) {
            return null;
        }
        Hashtable<String, Object> properties = new Hashtable<>();
        properties.put(PORT_PROPERTY, port);
        properties.put(HOST_PROPERTY, host);
        return context.registerService(OpsHttpServer.class.getName(), this, properties);
    }

    private void handle(HttpExchange exchange) {
        try {
            String path = exchange.getRequestURI().getPath();
            if (!path.equals(METRICS) && !path.equals(HEALTHZ) && !path.equals(READYZ)) {
                respond(exchange, 404, TEXT, "not found\n");
            } else if (!exchange.getRequestMethod().equals("GET")) {
                exchange.getResponseHeaders().set("Allow", "GET");
                respond(exchange, 405, TEXT, "method not allowed\n");
            } else if (path.equals(METRICS) && !servesMetrics) {
                // never an open door: with metricsAuth = kubernetes, /metrics needs a token, over HTTPS
                respond(exchange, 404, TEXT, "not here: /metrics is served over HTTPS to clients the API server "
                        + "authenticates and authorizes (" + METRICS_AUTH_PID + ")\n");
            } else if (path.equals(METRICS)) {
                ByteArrayOutputStream body = new ByteArrayOutputStream(16 * 1024);
                metrics.writeTo(body);
                respond(exchange, 200, metrics.contentType(), body.toByteArray());
            } else if (path.equals(HEALTHZ)) {
                respond(exchange, 200, TEXT, "ok");
            } else {
                List<String> problems = problems();
                if (problems.isEmpty()) {
                    respond(exchange, 200, TEXT, "ok");
                } else {
                    respond(exchange, 503, TEXT, String.join("\n", problems) + "\n");
                }
            }
        } catch (IOException e) {
            LOG.debug("ops HTTP request {} {} failed", exchange.getRequestMethod(), exchange.getRequestURI(), e);
        } catch (RuntimeException e) {
            LOG.warn("ops HTTP request {} {} failed", exchange.getRequestMethod(), exchange.getRequestURI(), e);
            try {
                respond(exchange, 500, TEXT, "internal error\n");
            } catch (IOException | RuntimeException ignored) {
                // headers were already sent or the client is gone
            }
        } finally {
            exchange.close();
        }
    }

    /** One line {@code name: problem} per failing check, in name order. */
    List<String> problems() {
        List<ReadinessCheck> snapshot = List.copyOf(checks);
        List<String> problems = new ArrayList<>();
        for (ReadinessCheck check : snapshot) {
            String name;
            try {
                name = oneLine(check.name());
            } catch (RuntimeException e) {
                name = check.getClass().getName();
            }
            try {
                Optional<String> problem = check.problem();
                if (problem == null) {
                    problems.add(name + ": readiness check returned null");
                } else if (problem.isPresent()) {
                    problems.add(name + ": " + oneLine(problem.get()));
                }
            } catch (RuntimeException e) {
                problems.add(name + ": check failed: " + oneLine(describe(e)));
            }
        }
        problems.sort(Comparator.naturalOrder());
        return problems;
    }

    private static void respond(HttpExchange exchange, int status, String contentType, String body)
            throws IOException {
        respond(exchange, status, contentType, body.getBytes(StandardCharsets.UTF_8));
    }

    private static void respond(HttpExchange exchange, int status, String contentType, byte[] body)
            throws IOException {
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        if (exchange.getRequestMethod().equals("HEAD")) {
            exchange.sendResponseHeaders(status, -1);
            return;
        }
        exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    /** True for metricsAuth = none; anything else (kubernetes, a typo) keeps /metrics off this listener. */
    private static boolean servesMetrics(Config config) {
        boolean none = METRICS_AUTH_NONE.equals(config.metricsAuth().strip());
        if (!none && !METRICS_AUTH_KUBERNETES.equals(config.metricsAuth().strip())) {
            LOG.error("ops HTTP: metricsAuth = '{}' is neither {} nor {}; /metrics is not served on this listener",
                    config.metricsAuth(), METRICS_AUTH_NONE, METRICS_AUTH_KUBERNETES);
        }
        return none;
    }

    /** Whether this listener serves {@code /metrics} (metricsAuth = none). */
    boolean servesMetrics() {
        return servesMetrics;
    }

    private static String address(Config config) {
        return config.host() + ":" + config.port();
    }

    private static String oneLine(String text) {
        return String.valueOf(text).replaceAll("\\R+", " ").strip();
    }

    private static String describe(Throwable e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    private record Listener(HttpServer server, ExecutorService executor, ServiceRegistration<?> registration) {

        int port() {
            return server.getAddress().getPort();
        }
    }

    private static final class HandlerThreads implements java.util.concurrent.ThreadFactory {

        private static final AtomicInteger COUNT = new AtomicInteger();

        @Override
        public Thread newThread(Runnable task) {
            Thread thread = new Thread(task, "ringmaster-ops-http-" + COUNT.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        }
    }
}
