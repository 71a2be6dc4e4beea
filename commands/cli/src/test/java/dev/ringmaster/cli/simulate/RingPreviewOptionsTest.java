package dev.ringmaster.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ringmaster.flags.UsageException;
import dev.ringmaster.ring.RingKind;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RingPreviewOptionsTest {

    private static RingPreviewOptions parse(String line) throws UsageException {
        return RingPreviewOptions.of(SimulationOptions.FLAGS.parse(List.of(line.split(" "))));
    }

    @Test
    void aRingOfEitherKindWithEveryOption() throws UsageException {
        RingPreviewOptions options = parse("--ring controllerring/web --strategy rendezvous --kubeconfig /tmp/kc"
                + " --current-strategy consistent-hash --tokens 200 --json");
        assertThat(options.kind()).isEqualTo(RingKind.CONTROLLER_RING);
        assertThat(options.ring()).isEqualTo("web");
        assertThat(options.ringName()).isEqualTo("ControllerRing/web");
        assertThat(options.kubeconfig()).contains(Path.of("/tmp/kc"));
        assertThat(options.strategy()).isEqualTo("rendezvous");
        assertThat(options.currentStrategy()).contains("consistent-hash");
        assertThat(options.tokensPerShard()).hasValue(200);
        assertThat(options.json()).isTrue();

        RingPreviewOptions minimal = parse("--strategy=rendezvous --ring=ClusterRing/example");
        assertThat(minimal.kind()).isEqualTo(RingKind.CLUSTER_RING);
        assertThat(minimal.kubeconfig()).isEmpty();
        assertThat(minimal.currentStrategy()).isEqualTo(Optional.empty());
        assertThat(minimal.tokensPerShard()).isEmpty();
        assertThat(minimal.json()).isFalse();
    }

    @Test
    void badArgumentsAreUsageErrors() {
        assertThatThrownBy(() -> parse("--ring clusterring/a")).isInstanceOf(UsageException.class)
                .hasMessage("--ring and --strategy are required");
        assertThatThrownBy(() -> parse("--strategy x --ring example")).hasMessage(
                "--ring must be KIND/NAME (clusterring/NAME or controllerring/NAME), got 'example'");
        assertThatThrownBy(() -> parse("--strategy x --ring clusterring/")).hasMessageStartingWith("--ring must be KIND/NAME");
        assertThatThrownBy(() -> parse("--strategy x --ring /a")).hasMessageStartingWith("--ring must be KIND/NAME");
        assertThatThrownBy(() -> parse("--strategy x --ring clusterring/a/b")).hasMessageStartingWith("--ring must be KIND/NAME");
        assertThatThrownBy(() -> parse("--strategy x --ring shardring/a"))
                .hasMessage("--ring shardring/a: the kind must be clusterring or controllerring");
        assertThatThrownBy(() -> parse("--strategy x --ring clusterring/a --shards 3"))
                .hasMessage("--shards does not go with --ring: the ring's shards and objects are read from the cluster");
        assertThatThrownBy(() -> parse("--strategy x --ring clusterring/a --ranges 64"))
                .hasMessageStartingWith("--ranges does not go with --ring");
        assertThatThrownBy(() -> parse("--strategy x --ring clusterring/a --costs zipf:1.1"))
                .hasMessageStartingWith("--costs does not go with --ring");
        assertThatThrownBy(() -> parse("--strategy x --ring clusterring/a --tokens 0"))
                .hasMessage("--tokens must be a whole number from 1 to 10000, not '0'");
        assertThatThrownBy(() -> parse("--strategy x --ring clusterring/a --verbose")).hasMessage("unknown flag --verbose");
        assertThatThrownBy(() -> parse("--strategy x --ring")).hasMessage("--ring needs a value");
    }
}
