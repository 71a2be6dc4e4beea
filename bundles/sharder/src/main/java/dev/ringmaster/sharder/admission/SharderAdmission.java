package dev.ringmaster.sharder.admission;

import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.RingResource;
import dev.ringmaster.ring.spi.AdmissionHandler;
import dev.ringmaster.ring.spi.AdmissionRequest;
import dev.ringmaster.ring.spi.AdmissionResponse;
import dev.ringmaster.ring.spi.AdmissionResponse.PatchOperation;
import dev.ringmaster.ring.spi.PartitionKey;
import dev.ringmaster.sharder.app.SharderMetrics;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.ring.RingRegistry;
import dev.ringmaster.sharder.ring.RingView;
import java.net.HttpURLConnection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The sharder's webhook (docs/design.md section 5): labels a new or still unassigned object of a ring with
 * the shard its ring view picks. It never fails a request for want of a shard: an object it
 * leaves unlabelled is assigned by the leader's unassigned-object watch once it can be.
 *
 * <p>Reads only immutable ring views, so any number of requests run
 * concurrently and every replica answers the same way.
 */
public final class SharderAdmission implements AdmissionHandler {

    public static final String NAME = "sharder";
    /** The path prefix this handler serves: every ring's webhook path, of either kind ({@link RingKind#webhookPath}). */
    public static final String PATH_PREFIX = "/webhooks/sharder/";

    private static final Set<String> ASSIGNING_OPERATIONS = Set.of("CREATE", "UPDATE");

    private final RingRegistry registry;
    private final SharderMetrics metrics;

    /**
     * @param registry every ring's current view
     * @param metrics  counts the assignments made (not those of dry runs)
     */
    public SharderAdmission(RingRegistry registry, SharderMetrics metrics) {
        this.registry = registry;
        this.metrics = metrics;
    }

    /** Parse, find the ring's view, key, look up, patch: everything else was compiled into the view. */
    @Override
    public AdmissionResponse handle(String path, AdmissionRequest request) {
        Optional<RingKey> addressed = ringOf(path);
        if (addressed.isEmpty()) {
            return AdmissionResponse.allowWithWarning("ringmaster: " + path
                    + " names no ClusterRing or ControllerRing; object not assigned");
        }
        Optional<RingView> found = registry.view(addressed.get());
        if (found.isEmpty()) {
            return AdmissionResponse.allowWithWarning("ringmaster: " + addressed.get().kind().kind() + " "
                    + addressed.get().name() + " does not exist; object not assigned");
        }
        RingView ring = found.get();
        String ringName = ring.kind().kind() + " " + ring.name();
        if (!ASSIGNING_OPERATIONS.contains(request.operation()) || !request.subResource().isEmpty()) {
            return AdmissionResponse.allow();
        }
        AdmissionObject object = new AdmissionObject(request.object());
        if (object.labels().containsKey(ring.shardLabel())) {
            return AdmissionResponse.allow();
        }
        if (!ring.isValid()) {
            return AdmissionResponse.allowWithWarning("ringmaster: " + ringName
                    + " is invalid (see its status); object not assigned");
        }
        Optional<RingResource> resource = ring.resource(request.resourceGroup(), request.resource());
        if (resource.isEmpty()) {
            return AdmissionResponse.allowWithWarning("ringmaster: " + resourceName(request)
                    + " is not a resource of " + ringName + "; object not assigned");
        }
        if (!ring.canAct() || !ring.strategyAgreesWithStatus()) {
            // a missing plug-in, or not the strategy the leader reports in force: the leader's
            // unassigned-object watch assigns the object
            return AdmissionResponse.allow();
        }
        PartitionKey key = ring.keyFor(object.reference(request), resource.get());
        if (key instanceof PartitionKey.Invalid invalid) {
            return AdmissionResponse.deny(HttpURLConnection.HTTP_BAD_REQUEST, ringName + " shards "
                    + resourceName(request) + ": " + invalid.message());
        }
        Optional<String> shard = ring.shardFor(key);
        if (shard.isEmpty()) {
            return AdmissionResponse.allow();
        }
        if (!request.dryRun()) {
            metrics.webhookAssigned(ring.key(), request.resourceGroup(), request.resource());
        }
        return AdmissionResponse.patch(List.of(labelPatch(object, ring.shardLabel(), shard.get())));
    }

    /** The ring a webhook path of either kind addresses. */
    static Optional<RingKey> ringOf(String path) {
        for (RingKind kind : RingKind.values()) {
            String ring = kind.ringOfWebhookPath(path);
            if (ring != null) {
                return Optional.of(new RingKey(kind, ring));
            }
        }
        return Optional.empty();
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
