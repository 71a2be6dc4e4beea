package dev.ringmaster.sharder.admission;

import dev.ringmaster.ring.ObjectReference;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingResource;
import dev.ringmaster.ring.RingResource.Role;
import dev.ringmaster.ring.RingSnapshot;
import dev.ringmaster.ring.spi.AdmissionHandler;
import dev.ringmaster.ring.spi.AdmissionRequest;
import dev.ringmaster.ring.spi.AdmissionResponse;
import dev.ringmaster.ring.spi.AdmissionResponse.PatchOperation;
import dev.ringmaster.ring.spi.PartitionKey;
import dev.ringmaster.ring.spi.ResourceInterpreter;
import dev.ringmaster.sharder.clusterring.ClusterRingValidation;
import dev.ringmaster.sharder.metrics.SharderMetrics;
import dev.ringmaster.sharder.model.ClusterRing;
import dev.ringmaster.sharder.model.GroupResource;
import dev.ringmaster.sharder.ring.RingRegistry;
import java.net.HttpURLConnection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The sharder's webhook (docs/design.md section 5): labels a new or still unassigned object of a ring with
 * the shard its ring snapshot picks. It never fails a request for want of a shard: an object it
 * leaves unlabelled is assigned by the leader's unassigned-object watch once it can be.
 *
 * <p>Reads only immutable snapshots (the ring cache, the registry), so any number of requests run
 * concurrently and every replica answers the same way.
 */
public final class SharderAdmission implements AdmissionHandler {

    public static final String NAME = "sharder";
    /** The path prefix of every ring's webhook ({@link RingContract#webhookPath}); the ring name follows it. */
    public static final String PATH_PREFIX = "/webhooks/sharder/clusterring/";

    private static final Set<String> ASSIGNING_OPERATIONS = Set.of("CREATE", "UPDATE");

    private final Function<String, Optional<ClusterRing>> rings;
    private final RingRegistry registry;
    private final Function<ClusterRing, Optional<ResourceInterpreter>> interpreter;
    private final SharderMetrics metrics;

    /**
     * @param rings       the cached ClusterRing of a name
     * @param registry    every ring's current snapshot
     * @param interpreter the interpreter keying a ring's objects, empty while one it needs is missing
     * @param metrics     counts the assignments made (not those of dry runs)
     */
    public SharderAdmission(Function<String, Optional<ClusterRing>> rings, RingRegistry registry,
            Function<ClusterRing, Optional<ResourceInterpreter>> interpreter, SharderMetrics metrics) {
        this.rings = rings;
        this.registry = registry;
        this.interpreter = interpreter;
        this.metrics = metrics;
    }

    @Override
    public AdmissionResponse handle(String path, AdmissionRequest request) {
        String ringName = RingContract.ringOfWebhookPath(path);
        if (ringName == null) {
            return AdmissionResponse.allowWithWarning("ringmaster: " + path + " names no ClusterRing; object not assigned");
        }
        Optional<ClusterRing> ring = rings.apply(ringName);
        if (ring.isEmpty()) {
            return AdmissionResponse.allowWithWarning("ringmaster: ClusterRing " + ringName
                    + " does not exist; object not assigned");
        }
        if (!ASSIGNING_OPERATIONS.contains(request.operation()) || !request.subResource().isEmpty()) {
            return AdmissionResponse.allow();
        }
        AdmissionObject object = new AdmissionObject(request.object());
        String shardLabel = RingContract.shardLabel(ringName);
        if (object.labels().containsKey(shardLabel)) {
            return AdmissionResponse.allow();
        }
        Role role = ring.get().getSpec().rolesByResource().get(new GroupResource(request.resourceGroup(), request.resource()));
        if (role == null) {
            return AdmissionResponse.allowWithWarning("ringmaster: " + resourceName(request)
                    + " is not a resource of ClusterRing " + ringName + "; object not assigned");
        }
        if (!ClusterRingValidation.validate(ring.get()).isEmpty()) {
            return AdmissionResponse.allowWithWarning("ringmaster: ClusterRing " + ringName
                    + " is invalid (see its status); object not assigned");
        }
        Optional<ResourceInterpreter> keys = interpreter.apply(ring.get());
        Optional<RingSnapshot> snapshot = registry.snapshot(ringName);
        if (keys.isEmpty() || snapshot.isEmpty()) {
            // a missing plug-in: the unassigned-object watch assigns the object once it is back
            return AdmissionResponse.allow();
        }
        ObjectReference reference = object.reference(request);
        PartitionKey key = keys.get().keyFor(reference, new RingResource(request.resourceGroup(), request.resource(), role));
        if (key instanceof PartitionKey.Invalid invalid) {
            return AdmissionResponse.deny(HttpURLConnection.HTTP_BAD_REQUEST, "ClusterRing " + ringName + " shards "
                    + resourceName(request) + ": " + invalid.message());
        }
        if (!(key instanceof PartitionKey.Key found)) {
            return AdmissionResponse.allow();
        }
        Optional<String> shard = snapshot.get().shardFor(found.value());
        if (shard.isEmpty()) {
            return AdmissionResponse.allow();
        }
        if (!request.dryRun()) {
            metrics.webhookAssigned(ringName, request.resourceGroup(), request.resource());
        }
        return AdmissionResponse.patch(List.of(labelPatch(object, shardLabel, shard.get())));
    }

    /** Adds the label, or the whole labels map when the object has none (a JSONPatch add needs the parent). */
    private static PatchOperation labelPatch(AdmissionObject object, String label, String shard) {
        if (!object.hasLabels()) {
            return new PatchOperation("add", "/metadata/labels", Map.of(label, shard));
        }
        return new PatchOperation("add", "/metadata/labels/" + escapeJsonPointer(label), shard);
    }

    /** RFC 6901: '~' and '/' in a reference token are written as '~0' and '~1'. */
    static String escapeJsonPointer(String token) {
        return token.replace("~", "~0").replace("/", "~1");
    }

    private static String resourceName(AdmissionRequest request) {
        return request.resourceGroup().isEmpty() ? request.resource() : request.resource() + "." + request.resourceGroup();
    }
}
