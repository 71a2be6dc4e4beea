package dev.ringmaster.sharder.app;

import dev.ringmaster.ring.spi.AdmissionHandler;
import dev.ringmaster.ring.spi.AdmissionRequest;
import dev.ringmaster.ring.spi.AdmissionResponse;
import dev.ringmaster.ring.spi.LeaseDetector;
import dev.ringmaster.ring.spi.PartitioningStrategy;
import dev.ringmaster.ring.spi.ResourceInterpreter;
import dev.ringmaster.sharder.admission.SharderAdmission;
import dev.ringmaster.sharder.clusterring.WebhookClientSettings;
import dev.ringmaster.sharder.rebalance.RebalanceLimits;
import dev.ringmaster.sharder.ring.StrategyBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.Map;
import java.util.Objects;
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

/**
 * The sharder as a DS component: a {@link SharderReplica} built from the configuration, with strategies,
 * lease detectors, resource interpreters and the meter registry bound dynamically, so plug-in
 * bundles come and go without restarting it. It serves the sharder's webhook paths as an
 * {@link AdmissionHandler} on every replica.
 *
 * <p>A configuration change replaces the {@code SharderReplica} in place (the old one gives up leadership
 * first) while this component and its handler service stay registered, so the webhook never
 * answers 404 for the sharder's paths; in the moment between the two, requests are allowed
 * unlabelled and the new term's unassigned-object watch assigns them.
 */
@Component(configurationPid = SharderComponent.PID, configurationPolicy = ConfigurationPolicy.REQUIRE,
        service = AdmissionHandler.class, immediate = true, // it works whether or not a webhook uses it
        property = {AdmissionHandler.NAME + "=" + SharderAdmission.NAME,
                AdmissionHandler.PATH_PREFIX + "=" + SharderAdmission.PATH_PREFIX})
@Designate(ocd = SharderSettings.class)
public class SharderComponent implements AdmissionHandler {

    public static final String PID = "dev.ringmaster.sharder";

    /** The plug-ins bound now; each new replica gets them all (guarded by this). */
    private PlugIns plugIns = PlugIns.NONE;
    private MeterRegistry meterRegistry;

    /** Read by request threads without the lock; replaced under it. */
    private volatile SharderReplica sharder;
    private BundleContext context;
    /** The Gogo shell finds its commands as services with these properties, if a shell is installed. */
    private ServiceRegistration<RingCommands> shellCommands;

    @Reference
    private KubernetesClient client;

    @Activate
    synchronized void activate(SharderSettings settings, BundleContext context) {
        this.context = context;
        replace(settings);
    }

    @Modified
    synchronized void modified(SharderSettings settings) {
        replace(settings);
    }

    @Deactivate
    synchronized void deactivate() {
        stopSharder();
    }

    @Override
    public AdmissionResponse handle(String path, AdmissionRequest request) {
        SharderReplica current = sharder;
        return current == null ? AdmissionResponse.allow() : current.admissionHandler().handle(path, request);
    }

    private void replace(SharderSettings settings) {
        stopSharder();
        RebalanceLimits limits = new RebalanceLimits(settings.pageSize(), settings.concurrentMoves(),
                settings.moveBudget(), Duration.ofSeconds(settings.resyncSeconds()), RebalanceLimits.DEFAULT.pendingRetry());
        SharderReplica created = new SharderReplica(client, new SharderReplica.Options(settings.defaultStrategy(),
                settings.leaseDetector(), settings.resourceInterpreter(), limits, webhook(settings),
                new SharderReplica.Options.LeaseName(settings.leaderElectionNamespace(), settings.leaderElectionLease()),
                identity(settings), Clock.systemUTC()));
        created.use(plugIns);
        if (meterRegistry != null) {
            created.addMeterRegistry(meterRegistry);
        }
        created.start();
        sharder = created;
        shellCommands = context.registerService(RingCommands.class, created.shellCommands(), new Hashtable<>(Map.of(
                "osgi.command.scope", RingCommands.SCOPE, "osgi.command.function", RingCommands.FUNCTIONS)));
    }

    private void stopSharder() {
        if (shellCommands != null) {
            shellCommands.unregister();
            shellCommands = null;
        }
        SharderReplica stopping = sharder;
        sharder = null;
        if (stopping != null) {
            stopping.close();
        }
    }

    static Optional<WebhookClientSettings> webhook(SharderSettings settings) {
        WebhookClientSettings webhook = switch (settings.webhookMode()) {
            case "off" -> null;
            case "url" -> WebhookClientSettings.url(settings.webhookUrl());
            case "service" -> WebhookClientSettings.service(new WebhookClientSettings.ServiceEndpoint(
                    settings.webhookServiceNamespace(), settings.webhookServiceName(), settings.webhookServicePort()));
            default -> throw new IllegalArgumentException("webhookMode must be service, url or off, not "
                    + settings.webhookMode());
        };
        if (webhook != null && !settings.webhookCaBundleFile().isEmpty()) {
            webhook = webhook.withCaBundleFile(Path.of(settings.webhookCaBundleFile()));
        }
        if (webhook != null && !settings.webhookCertManagerCertificate().isEmpty()) {
            webhook = webhook.withCertManagerCertificate(settings.webhookCertManagerCertificate());
        }
        return Optional.ofNullable(webhook);
    }

    private static String identity(SharderSettings settings) {
        if (!settings.identity().isEmpty()) {
            return settings.identity();
        }
        return Objects.requireNonNullElseGet(System.getenv("HOSTNAME"), () -> "sharder-" + ProcessHandle.current().pid());
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    synchronized void bindStrategy(PartitioningStrategy strategy, Map<String, Object> properties) {
        use(plugIns.withStrategy(name(properties, PartitioningStrategy.NAME),
                new StrategyBinding(strategy, serviceSettings(properties))));
    }

    /** A strategy publishes its settings as service properties: a change rebuilds the rings using it. */
    void updatedStrategy(PartitioningStrategy strategy, Map<String, Object> properties) {
        bindStrategy(strategy, properties);
    }

    synchronized void unbindStrategy(PartitioningStrategy strategy, Map<String, Object> properties) {
        use(plugIns.withoutStrategy(name(properties, PartitioningStrategy.NAME), strategy));
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    synchronized void bindDetector(LeaseDetector detector, Map<String, Object> properties) {
        use(plugIns.withDetector(name(properties, LeaseDetector.NAME), detector));
    }

    /** A detector's properties change when its verdicts may have, e.g. a Pod's readiness it watches. */
    synchronized void updatedDetector(LeaseDetector detector, Map<String, Object> properties) {
        bindDetector(detector, properties);
        if (sharder != null) {
            sharder.reevaluateShards(); // the same instance: use() sees no change of detectors
        }
    }

    synchronized void unbindDetector(LeaseDetector detector, Map<String, Object> properties) {
        use(plugIns.withoutDetector(name(properties, LeaseDetector.NAME), detector));
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    synchronized void bindInterpreter(ResourceInterpreter interpreter, Map<String, Object> properties) {
        use(plugIns.withInterpreter(name(properties, ResourceInterpreter.NAME), interpreter));
    }

    synchronized void unbindInterpreter(ResourceInterpreter interpreter, Map<String, Object> properties) {
        use(plugIns.withoutInterpreter(name(properties, ResourceInterpreter.NAME), interpreter));
    }

    private void use(PlugIns next) {
        plugIns = next;
        if (sharder != null) {
            sharder.use(next);
        }
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    synchronized void bindMeterRegistry(MeterRegistry registry) {
        meterRegistry = registry;
        if (sharder != null) {
            sharder.addMeterRegistry(registry);
        }
    }

    synchronized void unbindMeterRegistry(MeterRegistry registry) {
        if (meterRegistry == registry) {
            meterRegistry = null;
        }
        if (sharder != null) {
            sharder.removeMeterRegistry(registry);
        }
    }

    private static String name(Map<String, Object> properties, String nameProperty) {
        return String.valueOf(properties.get(nameProperty));
    }

    /** The properties that describe a service's settings, without the framework's bookkeeping. */
    private static Map<String, Object> serviceSettings(Map<String, Object> properties) {
        Map<String, Object> settings = new HashMap<>(properties);
        settings.keySet().removeIf(key -> key.startsWith("service.") || key.startsWith("component.")
                || key.startsWith("osgi.") || key.startsWith("felix.") || key.equals("objectClass"));
        return settings;
    }
}
