package dev.ringmaster.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ringmaster.ring.Shard;
import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.ring.consistent.ConsistentHashRing;
import dev.ringmaster.ring.rendezvous.RendezvousStrategy;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class PlacementTest {

    private static final List<String> SHARDS = List.of("shard-0", "shard-1", "shard-2");

    @Test
    void consistentHashingUsesTheSettingsOfItsConfigurationFile() {
        Properties settings = new Properties();
        settings.setProperty("tokensPerShard", "7");
        settings.setProperty("tokenSeparator", "-");

        assertSamePlacement(Placement.ring("consistent-hash", SHARDS, settings),
                ConsistentHashRing.build(shards(), 7, "-"));
    }

    @Test
    void consistentHashingFallsBackToItsDefaults() {
        Properties settings = new Properties();
        settings.setProperty("tokensPerShard", "${not.resolved}");

        assertSamePlacement(Placement.ring("consistent-hash", SHARDS, settings),
                ConsistentHashRing.build(shards(), 100, ""));
        assertSamePlacement(Placement.ring("consistent-hash", SHARDS, new Properties()),
                ConsistentHashRing.build(shards(), 100, ""));
    }

    @Test
    void rendezvousIsTheStrategysOwnRing() {
        assertSamePlacement(Placement.ring("rendezvous", SHARDS, new Properties()), new RendezvousStrategy().build(shards()));
    }

    @Test
    void anUnknownStrategyCannotBePlaced() {
        assertThatThrownBy(() -> Placement.ring("jump-hash", SHARDS, new Properties()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("jump-hash");
    }

    private static List<Shard> shards() {
        return SHARDS.stream().map(Shard::of).toList();
    }

    private static void assertSamePlacement(ShardRing actual, ShardRing expected) {
        assertThat(actual.shards()).isEqualTo(expected.shards());
        for (int i = 0; i < 1000; i++) {
            String key = "/ConfigMap/sandbox/cm-" + i;
            assertThat(actual.shardFor(key)).as(key).isEqualTo(expected.shardFor(key));
        }
    }
}
