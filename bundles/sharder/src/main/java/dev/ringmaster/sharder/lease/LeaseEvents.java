package dev.ringmaster.sharder.lease;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.api.model.events.v1.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Records {@code events.k8s.io/v1} Events about shard Leases, best effort. */
final class LeaseEvents {

    private static final Logger LOG = LoggerFactory.getLogger(LeaseEvents.class);

    static final String REPORTING_CONTROLLER = "ringmaster.dev/shardlease-controller";
    /** MicroTime as the API server writes it. */
    private static final DateTimeFormatter MICRO_TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX").withZone(ZoneOffset.UTC);
    /** The API server's limit for reportingInstance. */
    private static final int MAX_INSTANCE_LENGTH = 128;

    private final KubernetesClient client;
    private final Clock clock;
    private final String reportingInstance;

    LeaseEvents(KubernetesClient client, Clock clock) {
        this.client = client;
        this.clock = clock;
        // In a pod HOSTNAME is the pod name, which is what operators look for in reportingInstance.
        String host = Objects.requireNonNullElse(System.getenv("HOSTNAME"), "ringmaster-sharder");
        this.reportingInstance = host.length() > MAX_INSTANCE_LENGTH ? host.substring(0, MAX_INSTANCE_LENGTH) : host;
    }

    /**
     * Records a Warning about the lease. Failures are logged, not thrown: an event is a courtesy to
     * the operator and must never stop the lease from being reconciled.
     */
    void warn(Lease lease, String reason, String action, String note) {
        String namespace = lease.getMetadata().getNamespace();
        String name = lease.getMetadata().getName();
        Event event = new EventBuilder()
                .withNewMetadata()
                    // Same naming scheme as client-go's recorder; random because the clock may stand still.
                    .withName(name + "." + Long.toHexString(ThreadLocalRandom.current().nextLong()))
                    .withNamespace(namespace)
                .endMetadata()
                .withEventTime(new MicroTime(MICRO_TIME.format(clock.instant())))
                .withType("Warning")
                .withReason(reason)
                .withAction(action)
                .withNote(note)
                .withRegarding(new ObjectReferenceBuilder()
                        .withApiVersion(HasMetadata.getApiVersion(Lease.class))
                        .withKind(HasMetadata.getKind(Lease.class))
                        .withNamespace(namespace)
                        .withName(name)
                        .withUid(lease.getMetadata().getUid())
                        .withResourceVersion(lease.getMetadata().getResourceVersion())
                        .build())
                .withReportingController(REPORTING_CONTROLLER)
                .withReportingInstance(reportingInstance)
                .build();
        try {
            client.events().v1().events().inNamespace(namespace).resource(event).create();
        } catch (RuntimeException e) {
            LOG.warn("Could not record {} event for lease {}/{}: {}", reason, namespace, name, e.toString());
        }
    }
}
