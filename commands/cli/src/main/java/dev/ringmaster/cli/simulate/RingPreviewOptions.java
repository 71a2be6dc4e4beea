package dev.ringmaster.cli.simulate;

import dev.ringmaster.ring.RingKind;
import java.nio.file.Path;
import java.util.Iterator;
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

    /** Whether the arguments ask for a preview against a cluster rather than a synthetic fleet. */
    static boolean isRequested(List<String> args) {
        return args.contains(RING);
    }

    static RingPreviewOptions parse(List<String> args) throws UsageException {
        String ring = null;
        Path kubeconfig = null;
        String strategy = null;
        String currentStrategy = null;
        OptionalInt tokens = OptionalInt.empty();
        boolean json = false;
        for (Iterator<String> it = args.iterator(); it.hasNext(); ) {
            String option = it.next();
            switch (option) {
                case RING -> ring = SimulationOptions.value(option, it);
                case "--kubeconfig" -> kubeconfig = Path.of(SimulationOptions.value(option, it));
                case "--strategy" -> strategy = SimulationOptions.value(option, it);
                case "--current-strategy" -> currentStrategy = SimulationOptions.value(option, it);
                case "--tokens" -> tokens = OptionalInt.of(SimulationOptions.number(option,
                        SimulationOptions.value(option, it), 1, SimulationOptions.MAX_TOKENS_PER_SHARD));
                case "--json" -> json = true;
                case "--shards", "--objects", "--add", "--remove", "--weights" -> throw new UsageException(
                        option + " does not go with --ring: the ring's shards and objects are read from the cluster");
                default -> throw new UsageException("unknown option " + option);
            }
        }
        if (ring == null || strategy == null) {
            throw new UsageException("--ring and --strategy are required");
        }
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
        return new RingPreviewOptions(kind, ring.substring(slash + 1), Optional.ofNullable(kubeconfig), strategy,
                Optional.ofNullable(currentStrategy), tokens, json);
    }

    /** {@code ClusterRing/name}, as the sharder names a ring. */
    String ringName() {
        return kind.kind() + "/" + ring;
    }
}
