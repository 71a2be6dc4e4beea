package dev.ringmaster.sharder.unassigned;

import dev.ringmaster.ring.RingResource.Role;
import dev.ringmaster.sharder.kube.ResolvedResource;
import dev.ringmaster.sharder.model.RingKey;

/** One resource of one ring, watched for objects without the ring's shard label. */
public record WatchedResource(RingKey ring, ResolvedResource resource, Role role) {
}
