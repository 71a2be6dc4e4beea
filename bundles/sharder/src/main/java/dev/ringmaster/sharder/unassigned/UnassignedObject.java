package dev.ringmaster.sharder.unassigned;

/** An object seen without the ring's shard label: the key of the assigning controller. */
public record UnassignedObject(WatchedResource watched, String namespace, String name) {
}
