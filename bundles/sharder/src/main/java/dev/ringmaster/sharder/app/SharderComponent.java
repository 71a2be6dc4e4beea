package dev.ringmaster.sharder.app;

import dev.ringmaster.ops.ReadinessCheck;
import dev.ringmaster.ring.spi.AdmissionHandler;
import dev.ringmaster.ring.spi.AdmissionRequest;
import dev.ringmaster.ring.spi.AdmissionResponse;
import dev.ringmaster.ring.spi.LeaseDetector;
import dev.ringmaster.ring.spi.PartitioningStrategy;
import dev.ringmaster.ring.spi.PlacementPolicy;
import dev.ringmaster.ring.spi.ResourceInterpreter;
import dev.ringmaster.sharder.admission.SharderAdmission;
import dev.ringmaster.sharder.certificates.WebhookCertificates;
import dev.ringmaster.sharder.ringcontrol.ValidatingWebhookCa;
import dev.ringmaster.sharder.ringcontrol.WebhookClientSettings;
import dev.ringmaster.sharder.rebalance.RebalanceLimits;
import dev.ringmaster.sharder.ring.StrategyBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
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
 * {@link AdmissionHandler} on every replica, and is its {@code sharder} readiness check: not ready before the
 * replica has listed the rings and the shard Leases, so the webhook's Service never routes to a replica that
 * would let objects through unlabelled for want of its caches.
 *
 * <p>A configuration change replaces the {@code SharderReplica} in place (the old one gives up leadership
 * first) while this component and its handler service stay registered, so the webhook never
 * answers 404 for the sharder's paths. Until the new replica has synced, the old one's last ring views
 * answer the webhook (and keep the replica ready), for {@link #OUTGOING_VIEWS} at most: views that old are
 * no better than none, and a replica that cannot sync leaves the Service. Without them, every object created
 * while both replicas of a Deployment apply the same change would be let through unlabelled.
 */
@Component(configurationPid = SharderComponent.PID, configurationPolicy = ConfigurationPolicy.REQUIRE,
        service = {AdmissionHandler.class, ReadinessCheck.class},
        immediate = true, // it works whether or not a webhook uses it
        property = {AdmissionHandler.NAME + "=" + SharderAdmission.NAME,
                AdmissionHandler.PATH_PREFIX + "=" + SharderAdmission.PATH_PREFIX})
@Designate(ocd = SharderSettings.class)
public class SharderComponent implements AdmissionHandler, ReadinessCheck {

    public static final String PID = "dev.ringmaster.sharder";
    /** How long a replaced replica's ring views answer the webhook at most while its successor syncs. */
    static final Duration OUTGOING_VIEWS = Duration.ofSeconds(30);

    /** The plug-ins bound now; each new replica gets them all (guarded by this). */
    private PlugIns plugIns = PlugIns.NONE;
    private MeterRegistry meterRegistry;

    private final Clock clock = Clock.systemUTC();
    /** Read by request threads without the lock; replaced under it. */
    private volatile SharderReplica sharder;
    /** The replaced replica's webhook, while {@link #sharder} has not synced; read without the lock, set under it. */
    private volatile Outgoing outgoing;

    /** A replaced replica's webhook, answering from its last ring views until {@code until}. */
    private record Outgoing(AdmissionHandler webhook, Instant until) {
    }
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
        outgoing = null;
    }

    @Override
    public AdmissionResponse handle(String path, AdmissionRequest request) {
        SharderReplica current = sharder;
        if (current != null && current.notSynced().isEmpty()) {
            return current.admissionHandler().handle(path, request);
        }
        Optional<AdmissionHandler> replaced = outgoingWebhook();
        if (replaced.isPresent()) {
            return replaced.get().handle(path, request);
        }
        return current == null ? AdmissionResponse.allow() : current.admissionHandler().handle(path, request);
    }

    @Override
    public String name() {
        return "sharder";
    }

    /** Not ready until the replica has listed the rings and the shard Leases: see {@link SharderReplica#notSynced}. */
    @Override
    public Optional<String> problem() {
        SharderReplica current = sharder;
        Optional<String> problem = current == null ? Optional.of("not started") : current.notSynced();
        return problem.isPresent() && outgoingWebhook().isPresent() ? Optional.empty() : problem;
    }

    /** The replaced replica's webhook while its views are recent enough to answer with. */
    private Optional<AdmissionHandler> outgoingWebhook() {
        Outgoing replaced = outgoing;
        return replaced != null && clock.instant().isBefore(replaced.until()) ? Optional.of(replaced.webhook())
                : Optional.empty();
    }

    private void replace(SharderSettings settings) {
        SharderReplica replaced = sharder;
        if (replaced != null && replaced.notSynced().isEmpty()) {
            // a replica replaced before it synced leaves the views of the one before it answering
            outgoing = new Outgoing(replaced.admissionHandler(), clock.instant().plus(OUTGOING_VIEWS));
        }
        stopSharder();
        RebalanceLimits limits = new RebalanceLimits(settings.pageSize(), settings.concurrentMoves(),
                settings.moveBudget(), Duration.ofSeconds(settings.resyncSeconds()), RebalanceLimits.DEFAULT.pendingRetry());
        SharderReplica created = new SharderReplica(client, new SharderReplica.Options(settings.defaultStrategy(),
                settings.leaseDetector(), settings.resourceInterpreter(), limits, webhook(settings),
                new SharderReplica.Options.LeaseName(settings.leaderElectionNamespace(), settings.leaderElectionLease()),
                identity(settings), clock, certificates(settings), validatingWebhooks(settings),
                shardLeaseNamespaces(settings)));
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

    /** {@code webhookCertificates}: where the webhook's certificate and its CA come from. */
    enum CertificateMode {
        FILES("files"), SELF_SIGNED("self-signed"), CERT_MANAGER("cert-manager");

        private final String value;

        CertificateMode(String value) {
            this.value = value;
        }

        static CertificateMode of(String value) {
            return Arrays.stream(values()).filter(mode -> mode.value.equals(value.trim())).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException(
                            "webhookCertificates must be files, self-signed or cert-manager, not " + value));
        }
    }

    static Optional<WebhookCertificates.Settings> certificates(SharderSettings settings) {
        if (CertificateMode.of(settings.webhookCertificates()) != CertificateMode.SELF_SIGNED) {
            return Optional.empty();
        }
        if ("url".equals(settings.webhookMode())) {
            throw new IllegalArgumentException("webhookCertificates = self-signed makes a certificate for the Service "
                    + settings.webhookServiceNamespace() + "/" + settings.webhookServiceName()
                    + ", which webhookMode = url does not call: give the URL's certificate as files");
        }
        String directory = settings.webhookCertificateDir().trim();
        return Optional.of(new WebhookCertificates.Settings(settings.webhookServiceNamespace(),
                settings.webhookServiceName(), duration("webhookCaValidity", settings.webhookCaValidity()),
                duration("webhookCertificateValidity", settings.webhookCertificateValidity()),
                directory.isEmpty() ? Optional.empty() : Optional.of(Path.of(directory))));
    }

    /** A namespace's name: an RFC 1123 label. */
    private static final Pattern NAMESPACE = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

    /**
     * {@code shardLeaseNamespaces}: the namespaces, comma-separated, once each in the order given; empty: every
     * namespace.
     */
    static List<String> shardLeaseNamespaces(SharderSettings settings) {
        List<String> namespaces = Arrays.stream(settings.shardLeaseNamespaces().split(",")).map(String::trim)
                .filter(name -> !name.isEmpty()).distinct().toList();
        for (String namespace : namespaces) {
            if (namespace.length() > 63 || !NAMESPACE.matcher(namespace).matches()) {
                throw new IllegalArgumentException("shardLeaseNamespaces must be namespace names, comma-separated, not "
                        + settings.shardLeaseNamespaces() + " (" + namespace + ")");
            }
        }
        return namespaces;
    }

    static ValidatingWebhookCa.Settings validatingWebhooks(SharderSettings settings) {
        List<String> names = Arrays.stream(settings.webhookValidatingConfigurations().split(","))
                .map(String::trim).filter(name -> !name.isEmpty()).toList();
        return switch (CertificateMode.of(settings.webhookCertificates())) {
            // the replica puts its own CA in
            case SELF_SIGNED -> new ValidatingWebhookCa.Settings(names, null, null);
            case CERT_MANAGER -> new ValidatingWebhookCa.Settings(names, null, certManagerCertificate(settings));
            case FILES -> {
                if (!settings.webhookCaBundleFile().isEmpty()) {
                    WebhookClientSettings file = WebhookClientSettings.defaults()
                            .withCaBundleFile(Path.of(settings.webhookCaBundleFile()));
                    yield new ValidatingWebhookCa.Settings(names, () -> Optional.ofNullable(file.readCaBundle()), null);
                }
                String certificate = settings.webhookCertManagerCertificate().trim();
                yield new ValidatingWebhookCa.Settings(names, null, certificate.isEmpty() ? null : certificate);
            }
        };
    }

    private static String certManagerCertificate(SharderSettings settings) {
        String certificate = settings.webhookCertManagerCertificate().trim();
        if (certificate.isEmpty()) {
            throw new IllegalArgumentException("webhookCertificates = cert-manager needs webhookCertManagerCertificate "
                    + "(namespace/name of the Certificate)");
        }
        return certificate;
    }

    private static Duration duration(String key, String value) {
        try {
            Duration duration = Duration.parse(value.trim());
            if (duration.isNegative() || duration.isZero()) {
                throw new IllegalArgumentException(key + " must be positive, not " + value);
            }
            return duration;
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(key + " must be an ISO-8601 duration such as P365D or PT12H, not " + value);
        }
    }

    static Optional<WebhookClientSettings> webhook(SharderSettings settings) {
        CertificateMode certificates = CertificateMode.of(settings.webhookCertificates());
        WebhookClientSettings webhook = switch (settings.webhookMode()) {
            case "off" -> null;
            case "url" -> WebhookClientSettings.url(settings.webhookUrl());
            case "service" -> WebhookClientSettings.service(new WebhookClientSettings.ServiceEndpoint(
                    settings.webhookServiceNamespace(), settings.webhookServiceName(), settings.webhookServicePort()));
            default -> throw new IllegalArgumentException("webhookMode must be service, url or off, not "
                    + settings.webhookMode());
        };
        if (webhook == null) {
            return Optional.empty();
        }
        switch (certificates) {
            case SELF_SIGNED -> {
                // the replica's own CA, once it has it (SharderReplica)
            }
            case CERT_MANAGER -> webhook = webhook.withCertManagerCertificate(certManagerCertificate(settings));
            case FILES -> {
                // as before there were modes: a CA file, else cert-manager's injection if a Certificate is named
                if (!settings.webhookCaBundleFile().isEmpty()) {
                    webhook = webhook.withCaBundleFile(Path.of(settings.webhookCaBundleFile()));
                }
                if (!settings.webhookCertManagerCertificate().isEmpty()) {
                    webhook = webhook.withCertManagerCertificate(settings.webhookCertManagerCertificate());
                }
            }
        }
        return Optional.of(webhook);
    }

    private static String identity(SharderSettings settings) {
        if (!settings.identity().isEmpty()) {
            return settings.identity();
        }
        return Objects.requireNonNullElseGet(System.getenv("HOSTNAME"), () -> "sharder-" + ProcessHandle.current().pid());
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    synchronized void bindStrategy(ServiceReference<PartitioningStrategy> reference, PartitioningStrategy strategy,
            Map<String, Object> properties) {
        Bundle provider = reference.getBundle();
        use(plugIns.withStrategy(name(properties, PartitioningStrategy.NAME), new StrategyBinding(strategy,
                serviceSettings(properties), provider == null ? "" : provider.getSymbolicName() + " " + provider.getVersion())));
    }

    /** A strategy publishes its settings as service properties: a change rebuilds the rings using it. */
    void updatedStrategy(ServiceReference<PartitioningStrategy> reference, PartitioningStrategy strategy,
            Map<String, Object> properties) {
        bindStrategy(reference, strategy, properties);
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

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    synchronized void bindPolicy(PlacementPolicy policy, Map<String, Object> properties) {
        use(plugIns.withPolicy(name(properties, PlacementPolicy.NAME), policy));
    }

    synchronized void unbindPolicy(PlacementPolicy policy, Map<String, Object> properties) {
        use(plugIns.withoutPolicy(name(properties, PlacementPolicy.NAME), policy));
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
