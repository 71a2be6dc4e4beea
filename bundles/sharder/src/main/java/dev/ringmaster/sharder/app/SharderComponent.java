package dev.ringmaster.sharder.app;

import dev.ringmaster.ring.spi.LeaseDetector;
import dev.ringmaster.ring.spi.PartitioningStrategy;
import dev.ringmaster.ring.spi.ResourceInterpreter;
import dev.ringmaster.sharder.clusterring.WebhookSettings;
import dev.ringmaster.sharder.leader.LeaderElection;
import dev.ringmaster.sharder.metrics.SharderMetrics;
import dev.ringmaster.sharder.rebalance.RebalanceLimits;
import dev.ringmaster.sharder.ring.RingRegistry;
import dev.ringmaster.sharder.ring.StrategyBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
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
 * The sharder: keeps every ring's snapshot current from the bound plug-ins and, while this replica
 * leads, runs the controllers. Strategies, lease detectors, resource interpreters and the meter
 * registry are bound dynamically, so plug-in bundles come and go without restarting it.
 */
@Component(configurationPid = SharderComponent.PID, configurationPolicy = ConfigurationPolicy.REQUIRE, service = {})
@Designate(ocd = SharderSettings.class)
public class SharderComponent {

    public static final String PID = "dev.ringmaster.sharder";

    private final CompositeMeterRegistry meters = new CompositeMeterRegistry();
    private final SharderMetrics metrics = new SharderMetrics(meters);
    private final RingRegistry registry = new RingRegistry(metrics::ringCalculated);
    private final Map<String, StrategyBinding> strategies = new ConcurrentHashMap<>();
    private final Map<String, LeaseDetector> detectors = new ConcurrentHashMap<>();
    private final Map<String, ResourceInterpreter> interpreters = new ConcurrentHashMap<>();

    @Reference
    private KubernetesClient client;

    private volatile SharderSettings settings;
    private LeaderElection election;
    private volatile LeaderControllers controllers;

    @Activate
    void activate(SharderSettings settings) {
        this.settings = settings;
        Optional<WebhookSettings> webhook = webhook(settings);
        RebalanceLimits limits = new RebalanceLimits(settings.pageSize(), settings.concurrentMoves(),
                settings.moveBudget(), Duration.ofSeconds(settings.resyncSeconds()), RebalanceLimits.DEFAULT.pendingRetry());
        registry.update(inputs -> inputs.withDefaultStrategy(settings.defaultStrategy()));
        LeaderControllers.Settings term = new LeaderControllers.Settings(
                () -> detectors.get(this.settings.leaseDetector()), () -> interpreters.get(this.settings.resourceInterpreter()),
                limits, webhook, Clock.systemUTC());
        election = new LeaderElection(client, settings.leaderElectionNamespace(), settings.leaderElectionLease(),
                identity(settings), LeaderElection.Timing.DEFAULT,
                () -> startLeading(term), this::stopLeading);
        election.start();
    }

    @Deactivate
    void deactivate() {
        if (election != null) {
            election.close();
        }
        metrics.close();
    }

    private synchronized void startLeading(LeaderControllers.Settings term) {
        controllers = new LeaderControllers(client, registry, metrics, term);
        controllers.start();
    }

    private synchronized void stopLeading() {
        if (controllers != null) {
            controllers.close();
            controllers = null;
        }
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

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindStrategy(PartitioningStrategy strategy, Map<String, Object> properties) {
        strategies.put(name(properties), new StrategyBinding(strategy, serviceSettings(properties)));
        publishStrategies();
    }

    void updatedStrategy(PartitioningStrategy strategy, Map<String, Object> properties) {
        bindStrategy(strategy, properties);
    }

    void unbindStrategy(PartitioningStrategy strategy, Map<String, Object> properties) {
        strategies.computeIfPresent(name(properties), (name, bound) -> bound.strategy() == strategy ? null : bound);
        publishStrategies();
    }

    private void publishStrategies() {
        Map<String, StrategyBinding> snapshot = Map.copyOf(strategies);
        registry.update(inputs -> inputs.withStrategies(snapshot));
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindDetector(LeaseDetector detector, Map<String, Object> properties) {
        detectors.put(name(properties), detector);
        detectorsChanged();
    }

    void unbindDetector(LeaseDetector detector, Map<String, Object> properties) {
        detectors.remove(name(properties), detector);
        detectorsChanged();
    }

    private void detectorsChanged() {
        LeaderControllers current = controllers;
        if (current != null) {
            current.reevaluateShards();
        }
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindInterpreter(ResourceInterpreter interpreter, Map<String, Object> properties) {
        interpreters.put(name(properties), interpreter);
        interpretersChanged();
    }

    void unbindInterpreter(ResourceInterpreter interpreter, Map<String, Object> properties) {
        interpreters.remove(name(properties), interpreter);
        interpretersChanged();
    }

    private void interpretersChanged() {
        LeaderControllers current = controllers;
        if (current != null) {
            current.rekeyObjects();
        }
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindMeterRegistry(MeterRegistry registry) {
        meters.add(registry);
    }

    void unbindMeterRegistry(MeterRegistry registry) {
        meters.remove(registry);
    }

    private static String name(Map<String, Object> properties) {
        return String.valueOf(properties.get(PartitioningStrategy.NAME));
    }

    /** The properties that describe a service's settings, without the framework's bookkeeping. */
    private static Map<String, Object> serviceSettings(Map<String, Object> properties) {
        Map<String, Object> settings = new HashMap<>(properties);
        settings.keySet().removeIf(key -> key.startsWith("service.") || key.startsWith("component.")
                || key.equals("objectClass"));
        return settings;
    }
}
