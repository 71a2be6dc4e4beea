package dev.ringmaster.ring.consistent;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.ring.spi.PartitioningStrategy;
import java.util.Collection;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The {@value #NAME} strategy. Its configuration is published as service properties, so a change
 * of {@code tokensPerShard} is a service modification that makes consumers rebuild their rings. The
 * value is used as configured, so the property never claims a setting the strategy ignores; a value
 * no ring can be built with makes {@link #build} fail with a message saying why.
 */
@Component(
        configurationPid = ConsistentHashStrategy.PID,
        property = PartitioningStrategy.NAME + "=" + ConsistentHashStrategy.NAME)
@Designate(ocd = ConsistentHashStrategy.Config.class)
public class ConsistentHashStrategy implements PartitioningStrategy {

    /** The reference sharder's ring is the contract's default strategy, so its name is that one. */
    public static final String NAME = RingContract.DEFAULT_STRATEGY;
    public static final String PID = "dev.ringmaster.ring.consistent";

    @ObjectClassDefinition(
            name = "Ringmaster consistent hashing",
            description = "Consistent hashing with virtual nodes, as the reference sharder does it")
    public @interface Config {

        @AttributeDefinition(
                description = "Virtual nodes per shard of weight 1; the reference sharder uses 100",
                min = "1")
        int tokensPerShard() default DEFAULT_TOKENS_PER_SHARD;

        @AttributeDefinition(description = "Text between a shard's name and its token number when placing tokens: "
                + "empty is the reference sharder's format (every release); \"-\" avoids token collisions of names ending in digits")
        String tokenSeparator() default "";
    }

    /** Virtual nodes per shard of weight 1 when {@code tokensPerShard} is not configured: the reference sharder's. */
    public static final int DEFAULT_TOKENS_PER_SHARD = 100;

    private record Settings(int tokensPerShard, String tokenSeparator) {
    }

    private volatile Settings settings = new Settings(DEFAULT_TOKENS_PER_SHARD, "");

    @Activate
    @Modified
    void configure(Config config) {
        settings = new Settings(config.tokensPerShard(), config.tokenSeparator());
    }

    @Override
    public ShardRing build(Collection<Shard> shards) {
        Settings current = settings;
        return ConsistentHashRing.build(shards, current.tokensPerShard(), current.tokenSeparator());
    }
}
