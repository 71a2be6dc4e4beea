package dev.ringmaster.ring.consistent;

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
 * of {@code tokensPerShard} is a service modification that makes consumers rebuild their rings.
 */
@Component(
        configurationPid = ConsistentHashStrategy.PID,
        property = PartitioningStrategy.NAME + "=" + ConsistentHashStrategy.NAME)
@Designate(ocd = ConsistentHashStrategy.Config.class)
public class ConsistentHashStrategy implements PartitioningStrategy {

    public static final String NAME = "consistent-hash";
    public static final String PID = "dev.ringmaster.ring.consistent";

    @ObjectClassDefinition(
            name = "Ringmaster consistent hashing",
            description = "Consistent hashing with virtual nodes, as the reference sharder does it")
    public @interface Config {

        @AttributeDefinition(
                description = "Virtual nodes per shard of weight 1; the reference sharder uses 100",
                min = "1",
                max = "" + MAX_TOKENS_PER_SHARD)
        int tokensPerShard() default DEFAULT_TOKENS_PER_SHARD;
    }

    static final int DEFAULT_TOKENS_PER_SHARD = 100;
    static final int MAX_TOKENS_PER_SHARD = 10_000;

    private static final System.Logger LOG = System.getLogger(ConsistentHashStrategy.class.getName());

    private volatile int tokensPerShard = DEFAULT_TOKENS_PER_SHARD;

    @Activate
    @Modified
    void configure(Config config) {
        int requested = config.tokensPerShard();
        if (requested < 1 || requested > MAX_TOKENS_PER_SHARD) {
            LOG.log(System.Logger.Level.WARNING, "tokensPerShard={0} is outside 1..{1}; keeping {2}",
                    requested, MAX_TOKENS_PER_SHARD, tokensPerShard);
            return;
        }
        tokensPerShard = requested;
    }

    @Override
    public ShardRing build(Collection<Shard> shards) {
        return ConsistentHashRing.build(shards, tokensPerShard);
    }
}
