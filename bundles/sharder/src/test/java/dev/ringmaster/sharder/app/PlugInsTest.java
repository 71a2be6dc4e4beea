package dev.ringmaster.sharder.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.rendezvous.RendezvousStrategy;
import dev.ringmaster.ring.spi.LeaseDetector;
import dev.ringmaster.ring.spi.ResourceInterpreter;
import dev.ringmaster.sharder.interpreter.DefaultResourceInterpreter;
import dev.ringmaster.sharder.lease.DefaultLeaseDetector;
import dev.ringmaster.sharder.ring.StrategyBinding;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Plug-ins come and go in any order: DS may bind a replacement before it unbinds the one replaced. */
class PlugInsTest {

    @Test
    void aReplacementBoundFirstSurvivesTheUnbindOfTheOneItReplaced() {
        RendezvousStrategy old = new RendezvousStrategy();
        RendezvousStrategy replacement = new RendezvousStrategy();
        PlugIns plugIns = PlugIns.NONE.withStrategy("rendezvous", new StrategyBinding(old, Map.of()))
                .withStrategy("rendezvous", new StrategyBinding(replacement, Map.of("tokens", 7)))
                .withoutStrategy("rendezvous", old);

        assertThat(plugIns.strategies()).containsOnlyKeys("rendezvous");
        assertThat(plugIns.strategies().get("rendezvous").strategy()).isSameAs(replacement);
        assertThat(plugIns.withoutStrategy("rendezvous", replacement).strategies()).isEmpty();
    }

    @Test
    void detectorsAndInterpretersAreRemovedOnlyByTheInstanceBound() {
        LeaseDetector detector = new DefaultLeaseDetector();
        ResourceInterpreter interpreter = new DefaultResourceInterpreter();
        PlugIns plugIns = PlugIns.NONE.withDetector("default", detector).withInterpreter("default", interpreter);

        assertThat(plugIns.withoutDetector("default", new DefaultLeaseDetector())).isSameAs(plugIns);
        assertThat(plugIns.withoutInterpreter("default", new DefaultResourceInterpreter())).isSameAs(plugIns);
        assertThat(plugIns.withoutDetector("default", detector).detectors()).isEmpty();
        assertThat(plugIns.withoutInterpreter("default", interpreter).interpreters()).isEmpty();
        assertThat(plugIns.withoutDetector("default", detector).interpreters()).containsOnlyKeys("default");
    }

    @Test
    void aValueIsNeverChangedByWhatIsDerivedFromIt() {
        PlugIns before = PlugIns.NONE.withDetector("default", new DefaultLeaseDetector());
        before.withInterpreter("default", new DefaultResourceInterpreter());

        assertThat(before.interpreters()).isEmpty();
        assertThat(PlugIns.NONE.detectors()).isEmpty();
    }
}
