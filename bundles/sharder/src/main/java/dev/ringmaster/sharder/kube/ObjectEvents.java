package dev.ringmaster.sharder.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.api.model.events.v1.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Records {@code events.k8s.io/v1} Warning events about objects, best effort. */
public final class ObjectEvents {

    private static final Logger LOG = LoggerFactory.getLogger(ObjectEvents.class);

    /** MicroTime as the API server writes it. */
    private static final DateTimeFormatter MICRO_TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX").withZone(ZoneOffset.UTC);
    /** The API server's limit for reportingInstance. */
    private static final int MAX_INSTANCE_LENGTH = 128;
    /** Events of cluster-scoped objects go here, as client-go's recorder puts them. */
    private static final String CLUSTER_SCOPED_NAMESPACE = "default";
    /** How many distinct warnings {@link #warnOnce} remembers. */
    private static final int REMEMBERED = 4096;

    private final KubernetesClient client;
    private final Clock clock;
    private final String reportingController;
    private final String reportingInstance;
    private final Map<String, Boolean> warned = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > REMEMBERED;
        }
    };

    /** @param reportingController e.g. {@code ringmaster.dev/shardlease-controller} */
    public ObjectEvents(KubernetesClient client, Clock clock, String reportingController) {
        this.client = client;
        this.clock = clock;
        this.reportingController = reportingController;
        // In a pod HOSTNAME is the pod name, which is what operators look for in reportingInstance.
        String host = Objects.requireNonNullElse(System.getenv("HOSTNAME"), "ringmaster-sharder");
        this.reportingInstance = host.length() > MAX_INSTANCE_LENGTH ? host.substring(0, MAX_INSTANCE_LENGTH) : host;
    }

    /** A reference to {@code object} as events name what they regard: its kind, namespace, name, uid and version. */
    public static ObjectReference about(HasMetadata object) {
        return new ObjectReferenceBuilder().withApiVersion(HasMetadata.getApiVersion(object.getClass()))
                .withKind(HasMetadata.getKind(object.getClass())).withNamespace(object.getMetadata().getNamespace())
                .withName(object.getMetadata().getName()).withUid(object.getMetadata().getUid())
                .withResourceVersion(object.getMetadata().getResourceVersion()).build();
    }

    /**
     * Records a Warning about the object. Failures are logged, not thrown: an event is a courtesy to
     * the operator and must never stop a reconciliation.
     */
    public void warn(ObjectReference regarding, String reason, String action, String note) {
        record("Warning", regarding, reason, action, note);
    }

    /** Records a Normal event about the object: what the sharder did and why. Failures are logged, not thrown. */
    public void normal(ObjectReference regarding, String reason, String action, String note) {
        record("Normal", regarding, reason, action, note);
    }

    private void record(String type, ObjectReference regarding, String reason, String action, String note) {
        String namespace = regarding.getNamespace() == null || regarding.getNamespace().isEmpty()
                ? CLUSTER_SCOPED_NAMESPACE : regarding.getNamespace();
        Event event = new EventBuilder()
                .withNewMetadata()
                    // Same naming scheme as client-go's recorder; random because the clock may stand still.
                    .withName(regarding.getName() + "." + Long.toHexString(ThreadLocalRandom.current().nextLong()))
                    .withNamespace(namespace)
                .endMetadata()
                .withEventTime(new MicroTime(MICRO_TIME.format(clock.instant())))
                .withType(type)
                .withReason(reason)
                .withAction(action)
                .withNote(note)
                .withRegarding(regarding)
                .withReportingController(reportingController)
                .withReportingInstance(reportingInstance)
                .build();
        try {
            client.events().v1().events().inNamespace(namespace).resource(event).create();
        } catch (RuntimeException e) {
            LOG.warn("Could not record {} event for {} {}/{}: {}", reason, regarding.getKind(), namespace,
                    regarding.getName(), e.toString());
        }
    }

    /** Like {@link #warn}, but only the first time for this object, reason and note (recently). */
    public void warnOnce(ObjectReference regarding, String reason, String action, String note) {
        String key = regarding.getApiVersion() + "/" + regarding.getKind() + "/" + regarding.getNamespace() + "/"
                + regarding.getName() + "/" + reason + "/" + note;
        synchronized (warned) {
            if (warned.put(key, Boolean.TRUE) != null) {
                return;
            }
        }
        warn(regarding, reason, action, note);
    }
}
