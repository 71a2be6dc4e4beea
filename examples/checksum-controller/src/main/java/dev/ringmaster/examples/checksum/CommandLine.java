package dev.ringmaster.examples.checksum;

import dev.ringmaster.ring.RingKind;
import dev.ringmaster.shard.client.Sharding;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The command line of {@code bin/checksum-controller}:
 * {@code --kubeconfig F --ring NAME [--ring-kind clusterring|controllerring] --shard-name NAME
 * --namespace LEASE_NS [--watch-namespace NS]...}.
 * Flags take their value as the next argument or after {@code =}.
 *
 * @param kubeconfig the kubeconfig file to reach the API server with (its current context)
 * @param shard      what the shard runs with
 */
public record CommandLine(Path kubeconfig, ChecksumShard.Options shard) {

    public static final String USAGE = usage("checksum-controller", """
            One shard of the example sharded controller: for every ConfigMap the sharder assigns to this
            shard it keeps a Secret checksums-<configmap> with the SHA-256 of each data key, controlled by
            the ConfigMap.""");

    /**
     * The usage text of a command with these flags: {@code name}, what it does (one paragraph), then
     * the reconcile line, the flags and the exit codes.
     */
    public static String usage(String name, String description) {
        String indent = " ".repeat("Usage: ".length() + name.length() + 1);
        return "Usage: " + name + " --kubeconfig FILE --ring NAME --shard-name NAME --namespace LEASE_NAMESPACE\n"
                + indent + "[--ring-kind clusterring|controllerring] [--watch-namespace NAMESPACE]...\n\n"
                + description + " Prints one line per reconcile to stdout:\n" + """
                  reconcile shard=S object=NS/NAME start=MS end=MS
                Logs go to stderr. SIGTERM stops it and releases its Lease.

                  --kubeconfig FILE            kubeconfig of the cluster (its current context)
                  --ring NAME                  the ring this controller's shards belong to
                  --ring-kind KIND             its kind: clusterring (default) or controllerring (the reference
                                               sharder's ControllerRing, v0.9.0 and later)
                  --shard-name NAME            this shard's name: its Lease and the shard label value
                  --namespace LEASE_NAMESPACE  namespace of the shard's Lease
                  --watch-namespace NAMESPACE  reconcile ConfigMaps of this namespace only; repeat or separate
                                               with commas for several; default: all namespaces
                  -h, --help                   this text

                Exit codes: 1 the API server is unreachable or refuses the shard, 2 bad arguments; SIGTERM
                (143) or Ctrl-C (130) stops the shard gracefully, releasing its Lease.
                """;
    }

    /** The arguments were not usable; the message says why, in one line. */
    public static final class UsageException extends Exception {

        private static final long serialVersionUID = 1L;

        public UsageException(String message) {
            super(message);
        }
    }

    private static final String KUBECONFIG = "--kubeconfig";
    private static final String RING = "--ring";
    private static final String RING_KIND = "--ring-kind";
    private static final String SHARD_NAME = "--shard-name";
    private static final String NAMESPACE = "--namespace";
    private static final String WATCH_NAMESPACE = "--watch-namespace";
    private static final List<String> REQUIRED = List.of(KUBECONFIG, RING, SHARD_NAME, NAMESPACE);
    private static final Set<String> FLAGS =
            Set.of(KUBECONFIG, RING, RING_KIND, SHARD_NAME, NAMESPACE, WATCH_NAMESPACE);
    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

    /** Whether the arguments ask for the usage text. */
    public static boolean wantsHelp(List<String> args) {
        return args.contains("-h") || args.contains("--help");
    }

    /**
     * Parses and validates the arguments; the kubeconfig must be a readable file.
     *
     * @throws UsageException for a missing, unknown, repeated or empty flag, a stray argument, an
     *     invalid name or an unreadable kubeconfig
     */
    public static CommandLine parse(List<String> args) throws UsageException {
        Map<String, String> single = new LinkedHashMap<>();
        List<String> watched = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (!arg.startsWith("--")) {
                throw new UsageException("unexpected argument '" + arg + "'");
            }
            int equals = arg.indexOf('=');
            String flag = equals < 0 ? arg : arg.substring(0, equals);
            if (!FLAGS.contains(flag)) {
                throw new UsageException("unknown flag " + flag);
            }
            String value;
            if (equals >= 0) {
                value = arg.substring(equals + 1);
            } else if (i + 1 < args.size() && !args.get(i + 1).startsWith("--")) {
                value = args.get(++i);
            } else {
                throw new UsageException("flag " + flag + " needs a value");
            }
            if (value.isBlank()) {
                throw new UsageException("flag " + flag + " needs a non-empty value");
            }
            if (flag.equals(WATCH_NAMESPACE)) {
                for (String namespace : value.split(",", -1)) {
                    watched.add(namespace(namespace.strip()));
                }
            } else if (single.putIfAbsent(flag, value) != null) {
                throw new UsageException("flag " + flag + " is given twice");
            }
        }
        List<String> missing = REQUIRED.stream().filter(flag -> !single.containsKey(flag)).toList();
        if (!missing.isEmpty()) {
            throw new UsageException((missing.size() == 1 ? "missing required flag " : "missing required flags ")
                    + String.join(", ", missing));
        }
        Path kubeconfig = Path.of(single.get(KUBECONFIG));
        if (!Files.isRegularFile(kubeconfig) || !Files.isReadable(kubeconfig)) {
            throw new UsageException("kubeconfig " + kubeconfig + " is not a readable file");
        }
        RingKind ringKind = single.containsKey(RING_KIND) ? ringKind(single.get(RING_KIND)) : RingKind.CLUSTER_RING;
        String ring = single.get(RING);
        String shard = single.get(SHARD_NAME);
        String leaseNamespace = single.get(NAMESPACE);
        try {
            // the shard library's own checks of the names, without building anything
            Sharding.forRing(ring).shard(shard).namespace(leaseNamespace);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        return new CommandLine(kubeconfig, ChecksumShard.Options.of(ring, shard, leaseNamespace)
                .withRingKind(ringKind)
                .withWatchNamespaces(watched.stream().distinct().toList()));
    }

    /** The kind by its Kind name, case ignored: {@code clusterring} as the usage spells it, or {@code ClusterRing}. */
    private static RingKind ringKind(String value) throws UsageException {
        try {
            return RingKind.ofKind(value);
        } catch (IllegalArgumentException e) {
            throw new UsageException(RING_KIND + " '" + value + "' is not a ring kind: use "
                    + RingKind.CLUSTER_RING.lowerCaseKind() + " or " + RingKind.CONTROLLER_RING.lowerCaseKind());
        }
    }

    private static String namespace(String value) throws UsageException {
        if (!DNS_LABEL.matcher(value).matches()) {
            throw new UsageException("--watch-namespace '" + value + "' is not a namespace name:"
                    + " use at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit");
        }
        return value;
    }
}
