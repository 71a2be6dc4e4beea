package dev.ringmaster.sharder.app;

import dev.ringmaster.ring.spi.AdmissionHandler;
import dev.ringmaster.ring.spi.AdmissionRequest;
import dev.ringmaster.ring.spi.AdmissionResponse;
import dev.ringmaster.ring.spi.LeaseDetector;
import dev.ringmaster.ring.spi.PartitioningStrategy;
import dev.ringmaster.ring.spi.ResourceInterpreter;
import dev.ringmaster.sharder.admission.SharderAdmission;
import dev.ringmaster.sharder.clusterring.WebhookSettings;
import dev.ringmaster.sharder.rebalance.RebalanceLimits;
import dev.ringmaster.sharder.shell.RingCommands;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.Designate;

/**
 * The sharder as a DS component: a {@link Sharder} built from the configuration, with strategies,
 * lease detectors, resource interpreters and the meter registry bound dynamically, so plug-in
 * bundles come and go without restarting it. It serves the sharder's webhook paths as an
 * {@link AdmissionHandler} on every replica.
 */
@Component(configurationPid = SharderComponent.PID, configurationPolicy = ConfigurationPolicy.REQUIRE,
        service = AdmissionHandler.class, immediate = true, // it works whether or not a webhook uses it
        property = {AdmissionHandler.NAME + "=" + SharderAdmission.NAME,
                AdmissionHandler.PATH_PREFIX + "=" + SharderAdmission.PATH_PREFIX})
@Designate(ocd = SharderSettings.class)
public class SharderComponent implements AdmissionHandler {

    public static final String PID = "dev.ringmaster.sharder";

    /**
     * Plug-ins may bind before activation (greedy references bind first), so they wait here until the
     * sharder exists; guarded by this.
     */
    private final List<Consumer<Sharder>> early = new ArrayList<>();
    private Sharder sharder;
    /** The Gogo shell finds its commands as services with these properties, if a shell is installed. */
    private ServiceRegistration<RingCommands> shellCommands;

    @Reference
    private KubernetesClient client;

    @Activate
    void activate(SharderSettings settings, BundleContext context) {
        RebalanceLimits limits = new RebalanceLimits(settings.pageSize(), settings.concurrentMoves(),
                settings.moveBudget(), Duration.ofSeconds(settings.resyncSeconds()), RebalanceLimits.DEFAULT.pendingRetry());
        Sharder created = new Sharder(client, new Sharder.Options(settings.defaultStrategy(), settings.leaseDetector(),
                settings.resourceInterpreter(), limits, webhook(settings),
                new Sharder.Options.LeaseName(settings.leaderElectionNamespace(), settings.leaderElectionLease()),
                identity(settings), Clock.systemUTC()));
        synchronized (this) {
            early.forEach(binding -> binding.accept(created));
            early.clear();
            sharder = created;
        }
        created.start();
        shellCommands = context.registerService(RingCommands.class, created.shellCommands(), new Hashtable<>(Map.of(
                "osgi.command.scope", RingCommands.SCOPE, "osgi.command.function", RingCommands.FUNCTIONS)));
    }

    @Deactivate
    void deactivate() {
        shellCommands.unregister();
        Sharder stopping;
        synchronized (this) {
            stopping = sharder;
            sharder = null;
        }
        if (stopping != null) {
            stopping.close();
        }
    }

    @Override
    public AdmissionResponse handle(String path, AdmissionRequest request) {
        Sharder current;
        synchronized (this) {
            current = sharder;
        }
        return current == null ? AdmissionResponse.allow() : current.admissionHandler().handle(path, request);
    }

    static Optional<WebhookSettings> webhook(SharderSettings settings) {
        WebhookSettings webhook = switch (settings.webhookMode()) {
            case "off" -> null;
            case "url" -> WebhookSettings.url(settings.webhookUrl());
            case "service" -> WebhookSettings.service(new WebhookSettings.ServiceReference(
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

    /** Applies a binding change to the sharder now, or once it exists. */
    private synchronized void withSharder(Consumer<Sharder> change) {
        if (sharder != null) {
            change.accept(sharder);
        } else {
            early.add(change);
        }
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindStrategy(PartitioningStrategy strategy, Map<String, Object> properties) {
        withSharder(target -> target.bindStrategy(name(properties), strategy, serviceSettings(properties)));
    }

    void updatedStrategy(PartitioningStrategy strategy, Map<String, Object> properties) {
        bindStrategy(strategy, properties);
    }

    void unbindStrategy(PartitioningStrategy strategy, Map<String, Object> properties) {
        withSharder(target -> target.unbindStrategy(name(properties), strategy));
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindDetector(LeaseDetector detector, Map<String, Object> properties) {
        withSharder(target -> target.bindDetector(name(properties), detector));
    }

    /** A detector's properties change when its verdicts may have, e.g. a Pod's readiness it watches. */
    void updatedDetector(LeaseDetector detector, Map<String, Object> properties) {
        bindDetector(detector, properties); // which re-judges every shard
    }

    void unbindDetector(LeaseDetector detector, Map<String, Object> properties) {
        withSharder(target -> target.unbindDetector(name(properties), detector));
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindInterpreter(ResourceInterpreter interpreter, Map<String, Object> properties) {
        withSharder(target -> target.bindInterpreter(name(properties), interpreter));
    }

    void unbindInterpreter(ResourceInterpreter interpreter, Map<String, Object> properties) {
        withSharder(target -> target.unbindInterpreter(name(properties), interpreter));
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindMeterRegistry(MeterRegistry registry) {
        withSharder(target -> target.addMeterRegistry(registry));
    }

    void unbindMeterRegistry(MeterRegistry registry) {
        withSharder(target -> target.removeMeterRegistry(registry));
    }

    private static String name(Map<String, Object> properties) {
        return String.valueOf(properties.get(PartitioningStrategy.NAME));
    }

    /** The properties that describe a service's settings, without the framework's bookkeeping. */
    private static Map<String, Object> serviceSettings(Map<String, Object> properties) {
        Map<String, Object> settings = new HashMap<>(properties);
        settings.keySet().removeIf(key -> key.startsWith("service.") || key.startsWith("component.")
                || key.startsWith("osgi.") || key.startsWith("felix.") || key.equals("objectClass"));
        return settings;
    }
}
