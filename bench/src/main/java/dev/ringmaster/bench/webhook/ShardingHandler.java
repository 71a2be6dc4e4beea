package dev.ringmaster.bench.webhook;

import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.ring.consistent.ConsistentHashStrategy;
import dev.ringmaster.ring.spi.AdmissionHandler;
import dev.ringmaster.ring.spi.AdmissionRequest;
import dev.ringmaster.ring.spi.AdmissionResponse;
import dev.ringmaster.ring.spi.AdmissionResponse.PatchOperation;
import java.util.List;
import java.util.Map;

/**
 * Stands in for the sharder's admission handler with the same work per request: read the object's
 * labels, build the partition key ({@code group/Kind/namespace/name}), look the shard up on a
 * consistent-hash ring of 3 shards built by the real strategy, answer a one-operation JSONPatch.
 */
final class ShardingHandler implements AdmissionHandler {

    static final String PREFIX = "/webhooks/sharder/clusterring/";
    static final String PATH = PREFIX + "example";
    private static final String SHARD_LABEL = "shard.alpha.sharding.timebertt.dev/clusterring-50d858e0-example";
    private static final String PATCH_PATH = "/metadata/labels/" + SHARD_LABEL.replace("/", "~1");

    private final ShardRing ring = new ConsistentHashStrategy().build(
            List.of(Shard.of("shard-0"), Shard.of("shard-1"), Shard.of("shard-2")));

    @Override
    public AdmissionResponse handle(String path, AdmissionRequest request) {
        Object metadata = request.object().get("metadata");
        if (metadata instanceof Map<?, ?> meta && meta.get("labels") instanceof Map<?, ?> labels
                && labels.containsKey(SHARD_LABEL)) {
            return AdmissionResponse.allow();
        }
        String key = request.group() + "/" + request.kind() + "/" + request.namespace() + "/" + request.name();
        return ring.shardFor(key)
                .map(shard -> AdmissionResponse.patch(List.of(new PatchOperation("add", PATCH_PATH, shard))))
                .orElseGet(AdmissionResponse::allow);
    }
}
