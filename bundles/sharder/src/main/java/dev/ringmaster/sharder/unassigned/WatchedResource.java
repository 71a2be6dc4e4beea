package dev.ringmaster.sharder.unassigned;

import dev.ringmaster.ring.RingResource.Role;
import dev.ringmaster.sharder.kube.ResolvedResource;

/** One resource of one ring, watched for objects without the ring's shard label. */
public record WatchedResource(String ring, ResolvedResource resource, Role role) {
}
