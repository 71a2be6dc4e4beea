package dev.ringmaster.sharder.unassigned;

import dev.ringmaster.ring.RingResource.Role;
import dev.ringmaster.sharder.kube.ResolvedResource;
import dev.ringmaster.sharder.model.RingKey;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;

/** One resource of one ring, watched for objects without the ring's shard label. */
public record WatchedResource(RingKey ring, ResolvedResource resource, Role role) {

    /** Keeps exactly the {@code wanted} resources' watches: closes those of the others, starts the new ones. */
    static <W> void sync(Map<WatchedResource, W> watches, Set<WatchedResource> wanted,
                         Function<WatchedResource, W> start, Consumer<W> close) {
        watches.entrySet().removeIf(entry -> {
            if (wanted.contains(entry.getKey())) {
                return false;
            }
            close.accept(entry.getValue());
            return true;
        });
        for (WatchedResource watched : wanted) {
            watches.computeIfAbsent(watched, start);
        }
    }
}
