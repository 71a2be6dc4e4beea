package dev.ringmaster.plugins.podreadiness;

import dev.ringmaster.plugins.support.ConfigLists;
import dev.ringmaster.ring.spi.LeaseDetector;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * Lease detector {@value #NAME} as a DS component. It registers the {@link LeaseDetector} service
 * itself ({@link DetectorPublisher}) rather than through DS, because it changes the service's
 * properties when a Pod's readiness changes; DS offers no way to do that for a component's service.
 *
 * <p>It needs the {@link KubernetesClient} service (the sharder's client provider publishes one once
 * {@code dev.ringmaster.kubernetes} is configured) and the base detector whose verdicts it refines:
 * the sharder's {@code default} detector unless {@code baseDetector.target} says otherwise. A new
 * client or base detector, or a configuration change, re-creates the detector, which consumers see as
 * the service going and coming.
 */
@Component(configurationPid = PodReadinessComponent.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL,
        service = {})
@Designate(ocd = PodReadinessComponent.Settings.class)
public class PodReadinessComponent {

    public static final String PID = "dev.ringmaster.detector.podreadiness";
    /** The detector's {@value LeaseDetector#NAME}: the sharder's {@code leaseDetector} setting selects it. */
    public static final String NAME = "pod-readiness";

    @ObjectClassDefinition(name = "Ringmaster pod-readiness lease detector",
            description = "A shard is available only while its Lease is fresh and its Pod (named like the Lease,"
                    + " in its namespace) is Ready")
    public @interface Settings {

        @AttributeDefinition(description = "Namespaces in which to watch Pods; empty: each namespace of a shard"
                + " Lease the detector judges, from the first judgement on. Leases elsewhere are judged by the"
                + " Lease alone. In a .cfg file: comma-separated.")
        String[] namespaces() default {};

        @AttributeDefinition(description = "Label selector of the Pods to watch (e.g. app.kubernetes.io/component"
                + "=shard); empty: every Pod of those namespaces. A shard whose Pod is not selected is judged by"
                + " its Lease alone.")
        String podSelector() default "";

        @AttributeDefinition(description = "Milliseconds during which readiness changes are gathered before the"
                + " sharder is asked to judge its shards again")
        long debounceMillis() default 200;

        @AttributeDefinition(description = "LDAP filter selecting the lease"
                + " detector whose verdicts are refined (never this one)")
        String baseDetector_target() default "(" + LeaseDetector.NAME + "=default)";
    }

    @Reference
    private KubernetesClient client;

    @Reference(name = "baseDetector", target = "(" + LeaseDetector.NAME + "=default)")
    private LeaseDetector baseDetector;

    private DetectorPublisher publisher;

    @Activate
    void activate(BundleContext context, Settings settings, Map<String, Object> properties) {
        publisher = new DetectorPublisher(context, client, baseDetector, options(settings, properties));
    }

    @Deactivate
    void deactivate() {
        if (publisher != null) {
            publisher.close();
            publisher = null;
        }
    }

    /**
     * The options of a configuration. {@code namespaces} is read from the raw properties: one
     * comma-separated string in a {@code .cfg} file, a typed array in a {@code .config} file.
     */
    static DetectorPublisher.Options options(Settings settings, Map<String, Object> properties) {
        Set<String> namespaces = ConfigLists.strings(properties.get("namespaces"));
        if (settings.debounceMillis() < 0) {
            throw new IllegalArgumentException("debounceMillis must not be negative, got " + settings.debounceMillis());
        }
        return new DetectorPublisher.Options(namespaces, settings.podSelector(),
                Duration.ofMillis(settings.debounceMillis()));
    }
}
