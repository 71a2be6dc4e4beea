package dev.ringmaster.cli.simulate;

import dev.ringmaster.flags.Given;
import dev.ringmaster.flags.UsageException;
import dev.ringmaster.ring.RingKind;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Options of {@code ringmaster simulate --ring KIND/NAME}: a strategy change previewed against a ring
 * in a cluster.
 *
 * @param kind            the ring's kind
 * @param ring            the ring's name
 * @param kubeconfig      the cluster's kubeconfig; empty: fabric8's defaults, as kubectl
 * @param strategy        the candidate strategy
 * @param currentStrategy the strategy in force, when given; else it is read from the ring
 * @param tokensPerShard  the candidate strategy's tokens per shard, when given
 * @param json            one JSON object instead of the table
 */
record RingPreviewOptions(RingKind kind, String ring, Optional<Path> kubeconfig, String strategy,
        Optional<String> currentStrategy, OptionalInt tokensPerShard, boolean json) {

    static final String RING = "--ring";

    /** The options of a preview: the flags given with {@code --ring}. */
    static RingPreviewOptions of(Given given) throws UsageException {
        for (String flag : List.of("--shards", "--objects", "--add", "--remove", "--weights", "--ranges", "--range-key",
                SimulationOptions.COSTS)) {
            if (given.has(flag)) {
                throw new UsageException(flag + " does not go with --ring: the ring's shards and objects are read from"
                        + " the cluster");
            }
        }
        String ring = given.value(RING).orElseThrow();
        String strategy = given.value("--strategy").orElseThrow(
                () -> new UsageException("--ring and --strategy are required"));
        int slash = ring.indexOf('/');
        if (slash <= 0 || slash == ring.length() - 1 || ring.indexOf('/', slash + 1) >= 0) {
            throw new UsageException("--ring must be KIND/NAME (clusterring/NAME or controllerring/NAME), got '" + ring + "'");
        }
        RingKind kind;
        try {
            kind = RingKind.ofKind(ring.substring(0, slash));
        } catch (IllegalArgumentException e) {
            throw new UsageException("--ring " + ring + ": the kind must be clusterring or controllerring");
        }
        return new RingPreviewOptions(kind, ring.substring(slash + 1), given.value("--kubeconfig").map(Path::of), strategy,
                given.value("--current-strategy"), SimulationOptions.tokensPerShard(given), given.has("--json"));
    }

    /** {@code ClusterRing/name}, as the sharder names a ring. */
    String ringName() {
        return kind.kind() + "/" + ring;
    }
}
