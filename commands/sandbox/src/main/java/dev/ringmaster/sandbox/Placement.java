package dev.ringmaster.sandbox;

import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.ring.consistent.ConsistentHashRing;
import dev.ringmaster.ring.consistent.ConsistentHashStrategy;
import dev.ringmaster.ring.rendezvous.RendezvousStrategy;
import java.util.Collection;
import java.util.List;
import java.util.Properties;

/**
 * Where the sharder should put each object: the ring of the strategy in force over the available
 * shards, built with the strategies' own code (the jars the sharder runs as bundles) and the
 * settings of the sandbox's configuration. A scenario is over only when every object is where this
 * ring says, so the sandbox also checks that the sharder placed them right.
 */
final class Placement {

    static final String CONSISTENT_PID = ConsistentHashStrategy.PID;

    private Placement() {
    }

    /**
     * The ring of {@code strategy} over {@code shards}, all of weight 1 (the sandbox's shards carry no
     * weight annotation).
     *
     * @param consistent the {@value #CONSISTENT_PID} configuration ({@code tokensPerShard},
     *                   {@code tokenSeparator}), as the sharder's consistent-hash strategy gets it
     * @throws IllegalArgumentException for a strategy the sandbox does not know
     */
    static ShardRing ring(String strategy, Collection<String> shards, Properties consistent) {
        List<Shard> members = shards.stream().map(Shard::of).toList();
        return switch (strategy) {
            case ConsistentHashStrategy.NAME -> ConsistentHashRing.build(members, tokensPerShard(consistent),
                    consistent.getProperty("tokenSeparator", "").strip());
            case RendezvousStrategy.NAME -> new RendezvousStrategy().build(members);
            default -> throw new IllegalArgumentException("the sandbox cannot place objects for strategy " + strategy);
        };
    }

    private static int tokensPerShard(Properties consistent) {
        try {
            return Integer.parseInt(consistent.getProperty("tokensPerShard", "").strip());
        } catch (NumberFormatException e) {
            return ConsistentHashStrategy.DEFAULT_TOKENS_PER_SHARD;
        }
    }
}
