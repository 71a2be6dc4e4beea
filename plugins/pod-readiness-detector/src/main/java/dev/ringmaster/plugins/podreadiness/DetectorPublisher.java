package dev.ringmaster.plugins.podreadiness;

import dev.ringmaster.ring.spi.LeaseDetector;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the pod-readiness {@link LeaseDetector} service and asks its consumers to judge every
 * shard again when a Pod's readiness changes: it modifies the service's
 * {@value #REVISION_PROPERTY} property (a DS consumer's {@code updated} method runs, the sharder's
 * re-judges every shard). Changes within {@code debounce} of each other cause one modification.
 */
final class DetectorPublisher implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DetectorPublisher.class);

    /**
     * Service property (Long) counting the changes of the detector's inputs other than the lease; every
     * increment is a service modification that asks consumers to judge every shard again.
     */
    static final String REVISION_PROPERTY = "ringmaster.detector.revision";

    /**
     * @param namespaces  where to watch Pods; empty: the namespaces of the Leases asked about
     * @param podSelector label selector of the Pods to watch, empty for all
     * @param debounce    how long readiness changes are gathered before consumers are told
     */
    record Options(Set<String> namespaces, String podSelector, Duration debounce) {
        Options {
            namespaces = Set.copyOf(namespaces);
            podSelector = Objects.requireNonNullElse(podSelector, "").trim();
            Objects.requireNonNull(debounce, "debounce");
        }
    }

    private final ScheduledExecutorService executor;
    private final PodReadinessCache cache;
    private final PodReadinessDetector detector;
    private final AtomicLong revision = new AtomicLong();
    private final ServiceRegistration<LeaseDetector> registration;
    private final Object lock = new Object();
    private boolean closed; // guarded by lock

    DetectorPublisher(BundleContext context, KubernetesClient client, LeaseDetector base, Options options) {
        executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "pod-readiness-detector");
            thread.setDaemon(true);
            return thread;
        });
        Debouncer debouncer = new Debouncer(executor, options.debounce(), this::bumpRevision);
        cache = new PodReadinessCache(client, options.namespaces(), options.podSelector(), executor,
                debouncer::request);
        detector = new PodReadinessDetector(base, cache);
        try {
            registration = context.registerService(LeaseDetector.class, detector, properties(revision.get()));
        } catch (RuntimeException e) {
            executor.shutdownNow();
            throw e;
        }
        cache.start();
        LOG.info("Lease detector {} published; Pods watched in {}{}", PodReadinessComponent.NAME,
                options.namespaces().isEmpty() ? "the namespaces of shard Leases" : options.namespaces(),
                options.podSelector().isEmpty() ? "" : " with selector " + options.podSelector());
    }

    LeaseDetector detector() {
        return detector;
    }

    PodReadinessCache cache() {
        return cache;
    }

    long revision() {
        return revision.get();
    }

    private void bumpRevision() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            long next = revision.incrementAndGet();
            try {
                registration.setProperties(properties(next));
                LOG.debug("Pod readiness changed; revision {} asks for every shard to be judged again", next);
            } catch (IllegalStateException unregistered) {
                // the bundle is stopping
            }
        }
    }

    private static Dictionary<String, Object> properties(long revision) {
        Hashtable<String, Object> properties = new Hashtable<>();
        properties.put(LeaseDetector.NAME, PodReadinessComponent.NAME);
        properties.put(REVISION_PROPERTY, revision);
        return properties;
    }

    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
            try {
                registration.unregister();
            } catch (IllegalStateException alreadyUnregistered) {
                // the framework unregisters a stopping bundle's services itself
            }
        }
        cache.close();
        executor.shutdownNow();
    }
}
