package dev.ringmaster.delivery;

import dev.ringmaster.ops.ReadinessCheck;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleEvent;
import org.osgi.framework.BundleListener;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.cm.ConfigurationPlugin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Configuration and plug-in bundles delivered through the Kubernetes API (docs/operating.md): every
 * replica watches the ConfigMaps of its namespace that carry the delivery label and applies what they
 * hold, in the order they change, on one thread: configuration values over Config Admin
 * ({@link ConfigurationOverlay}), bundles into the framework ({@link BundleDeployer}). The outcome is
 * logged, written as Events on the ConfigMaps ({@link DeliveryReport}) and exported as metrics. Until
 * the ConfigMaps were applied once, {@code /readyz} says so, so that a starting replica serves the
 * webhook only with what the cluster delivers.
 *
 * <p>Delivered bundles stay when this component stops (say, for a new API server client): a successor
 * takes them over by their locations.
 */
@Component(configurationPid = DeliveryComponent.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = DeliveryComponent.Settings.class)
public class DeliveryComponent implements ReadinessCheck {

    public static final String PID = "dev.ringmaster.delivery";
    /** The label that makes a ConfigMap of the namespace a delivery one; its value does not matter. */
    public static final String LABEL = "ringmaster.dev/delivery";

    private static final Logger LOG = LoggerFactory.getLogger(DeliveryComponent.class);

    @ObjectClassDefinition(name = "Ringmaster delivery",
            description = "Configuration and plug-in bundles from labelled ConfigMaps of the sharder's namespace")
    public @interface Settings {

        @AttributeDefinition(description = "Namespace whose ConfigMaps labelled " + LABEL + " are applied")
        String namespace() default "sharding-system";

        @AttributeDefinition(description = "SHA-256 (hex) of the bundles that may run, comma-separated;"
                + " empty: any bundle whoever may write the ConfigMaps delivers")
        String allowedSha256() default "";

        @AttributeDefinition(description = "Trusted certificates of plug-in signers: a PEM file, or a directory of"
                + " *.pem and *.crt files, in the image; empty: signatures are not checked. Set: a bundle runs only if"
                + " every entry is signed by a signer one of them vouches for (that certificate, or a chain to it)")
        String trustedCertificates() default "";

        @AttributeDefinition(description = "This replica's name in Events; empty: $HOSTNAME (the pod name)")
        String identity() default "";
    }

    @Reference
    private KubernetesClient client;

    @Reference
    private ConfigurationAdmin configurationAdmin;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile MeterRegistry meterRegistry;

    private final ConfigurationOverlay overlay = new ConfigurationOverlay();
    private final AtomicBoolean syncQueued = new AtomicBoolean();
    private ExecutorService deliveryThread;
    private BundleDeployer deployer;
    private DeliveryReport report;
    private ServiceRegistration<ConfigurationPlugin> pluginRegistration;
    private SharedIndexInformer<ConfigMap> informer;
    private BundleListener bundleStates;
    private volatile Optional<String> problem = Optional.of("the delivery ConfigMaps are not applied yet");

    @Activate
    void activate(BundleContext context, Settings settings) {
        String namespace = settings.namespace();
        Set<String> allowed = Arrays.stream(settings.allowedSha256().split(",")).map(String::trim)
                .map(String::toLowerCase).filter(sha -> !sha.isEmpty()).collect(Collectors.toUnmodifiableSet());
        JarCheck check = JarCheck.allowedSha256(allowed);
        String trust = settings.trustedCertificates().trim();
        if (!trust.isEmpty()) {
            SignedJars signed = SignedJars.trusting(Path.of(trust));
            signed.problem().ifPresentOrElse(
                    problem -> LOG.error("Every delivered bundle is refused: the trusted certificates cannot be read: {}",
                            problem),
                    () -> LOG.info("Delivered bundles must be signed: {}", signed.describe()));
            check = check.and(signed);
        }
        deployer = new BundleDeployer(context, check);
        String identity = settings.identity().isEmpty() ? Optional.ofNullable(System.getenv("HOSTNAME")).orElse("")
                : settings.identity();
        report = new DeliveryReport(client, identity);
        Dictionary<String, Object> ranking = new Hashtable<>();
        ranking.put(ConfigurationPlugin.CM_RANKING, ConfigurationOverlay.RANKING);
        pluginRegistration = context.registerService(ConfigurationPlugin.class, overlay, ranking);
        deliveryThread = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "ringmaster-delivery");
            thread.setDaemon(true);
            return thread;
        });
        informer = client.configMaps().inNamespace(namespace).withLabel(LABEL).runnableInformer(0);
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(ConfigMap configMap) {
                queueSync();
            }

            @Override
            public void onUpdate(ConfigMap before, ConfigMap after) {
                queueSync();
            }

            @Override
            public void onDelete(ConfigMap configMap, boolean finalStateUnknown) {
                queueSync();
            }
        });
        AtomicBoolean warned = new AtomicBoolean();
        informer.exceptionHandler((started, failure) -> {
            // e.g. no permission to list ConfigMaps there: said once, then retried with backoff
            if (warned.compareAndSet(false, true)) {
                LOG.warn("Watching the delivery ConfigMaps of namespace {} failed; retrying: {}", namespace,
                        failure.toString());
            }
            if (problem.isPresent()) {
                problem = Optional.of("cannot watch the delivery ConfigMaps of namespace " + namespace + ": "
                        + failure.getMessage());
            }
            return true;
        });
        informer.start().whenComplete((done, failure) -> queueSync());
        // a bundle installed while the framework still starts becomes active later, at its start level:
        // report it again then (and when a delivered bundle stops for any other reason)
        bundleStates = event -> {
            if (event.getBundle().getLocation().startsWith(Delivery.LOCATION_PREFIX)
                    && (event.getType() == BundleEvent.STARTED || event.getType() == BundleEvent.STOPPED)) {
                queueSync();
            }
        };
        context.addBundleListener(bundleStates);
        LOG.info("Applying configuration and bundles from the ConfigMaps labelled {} in namespace {}{}", LABEL,
                namespace, allowed.isEmpty() ? "" : " (" + allowed.size() + " bundle digests allowed)");
    }

    @Deactivate
    void deactivate(BundleContext context) {
        context.removeBundleListener(bundleStates);
        informer.stop();
        deliveryThread.shutdownNow();
        try {
            deliveryThread.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        pluginRegistration.unregister();
        report.removeMetrics();
    }

    @Override
    public String name() {
        return "delivery";
    }

    @Override
    public Optional<String> problem() {
        return problem;
    }

    /** Many ConfigMap events in a row need one sync: what runs reads them all. */
    private void queueSync() {
        if (informer.hasSynced() && syncQueued.compareAndSet(false, true)) {
            deliveryThread.execute(() -> {
                syncQueued.set(false);
                sync();
            });
        }
    }

    private void sync() {
        List<ConfigMap> configMaps = informer.getStore().list();
        Delivery delivery = Delivery.of(configMaps, PID);
        ConfigurationOverlay.Applied applied = overlay.apply(delivery.configurations(), configurationAdmin);
        if (!applied.redelivered().isEmpty()) {
            LOG.info("Delivered configuration now in force for {}", applied.redelivered());
        }
        report.delivered(delivery, applied.failures(), deployer.apply(delivery.jars()), configMaps, meterRegistry);
        problem = Optional.empty();
    }
}
