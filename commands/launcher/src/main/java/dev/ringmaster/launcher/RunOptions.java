package dev.ringmaster.launcher;

import dev.ringmaster.flags.Flags;
import dev.ringmaster.flags.Given;
import dev.ringmaster.flags.UsageException;
import dev.ringmaster.launcher.run.RunFlag;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Parses the flags of {@code ringmaster run} into the framework properties of {@link RunFlag}: every
 * flag's property (its default when not given) and {@value RunFlag#GIVEN}.
 */
final class RunOptions {

    static final String USAGE = """
            usage: ringmaster run [--kubeconfig FILE] [--namespace NS] [--tls-dir DIR]
                                  [--webhook-certificates files|self-signed|cert-manager]
                                  [--webhook-url URL [--webhook-ca FILE]] [--metrics-auth none|kubernetes]
                                  [--default-strategy NAME] [--shard-lease-namespaces NS,...] [--shell]

            Runs the sharder and the webhook until SIGTERM; configuration in etc/ (a flag given wins over it),
            plug-ins in deploy/.
              --kubeconfig FILE        kubeconfig of the cluster (default: in-cluster, else $KUBECONFIG or ~/.kube/config)
              --namespace NS           the sharder's namespace: leader election and webhook Service (default: %s)
              --tls-dir DIR            directory with the webhook's tls.crt and tls.key (default: %s)
              --webhook-certificates MODE
                                       files: tls.crt and tls.key are put into --tls-dir for the sharder (default);
                                       self-signed: the sharder makes them, with a CA of its own, keeps them in
                                       Secrets and writes them into --tls-dir; cert-manager: cert-manager issues them
              --webhook-url URL        webhook configurations call this URL instead of the in-cluster Service
              --webhook-ca FILE        PEM CA bundle the API server verifies --webhook-url with
              --metrics-auth MODE      none: /metrics on the plain ops port, unauthenticated (default);
                                       kubernetes: /metrics over HTTPS on port 8443 (the --tls-dir certificate),
                                       only for bearer tokens the API server accepts and allows get on /metrics
              --default-strategy NAME  partitioning strategy of rings that name none (default: %s)
              --shard-lease-namespaces NS,...
                                       watch shard Leases only in these namespaces (comma-separated), so that Lease
                                       permissions there suffice (default: every namespace, watched cluster-wide)
              --shell                  a Gogo shell on this terminal (ring:list, ring:shards, ring:explain,
                                       ring:strategies); end of input stops ringmaster""".formatted(
            RunFlag.NAMESPACE.defaultValue(), RunFlag.TLS_DIR.defaultValue(), RunFlag.DEFAULT_STRATEGY.defaultValue());

    /** The command-line options of {@link RunFlag}'s table. */
    private static final Flags FLAGS = flags();

    private RunOptions() {
    }

    /** The framework properties of {@code run} without flags: every default, none given. */
    static Map<String, String> defaults() {
        return properties(defaultValues(), Set.of());
    }

    /**
     * @return the framework properties for these flags, every one set (to its default when not given)
     * @throws UsageException for an unknown flag, a missing value or a file that cannot be read
     */
    static Map<String, String> parse(List<String> args) throws UsageException {
        Given flags = FLAGS.parse(args);
        Map<RunFlag, String> values = defaultValues();
        Set<RunFlag> given = new LinkedHashSet<>();
        for (String option : flags.flags()) {
            RunFlag flag = withOption(option);
            values.put(flag, flag.isSwitch() ? "true" : flags.value(option).orElseThrow());
            given.add(flag);
        }
        String certificates = values.get(RunFlag.WEBHOOK_CERTIFICATES);
        if (!List.of("files", "self-signed", "cert-manager").contains(certificates)) {
            throw new UsageException("--webhook-certificates must be files, self-signed or cert-manager, not "
                    + certificates);
        }
        String metricsAuth = values.get(RunFlag.METRICS_AUTH);
        if (!List.of("none", "kubernetes").contains(metricsAuth)) {
            throw new UsageException("--metrics-auth must be none or kubernetes, not " + metricsAuth);
        }
        readable("--kubeconfig", values.get(RunFlag.KUBECONFIG));
        readable("--webhook-ca", values.get(RunFlag.WEBHOOK_CA));
        String webhookUrl = values.get(RunFlag.WEBHOOK_URL);
        if (!webhookUrl.isEmpty()) {
            if (!webhookUrl.startsWith("https://")) {
                throw new UsageException("--webhook-url must be an https:// URL, not " + webhookUrl);
            }
            values.put(RunFlag.WEBHOOK_MODE, "url");
            given.add(RunFlag.WEBHOOK_MODE);
        } else if (!values.get(RunFlag.WEBHOOK_CA).isEmpty()) {
            throw new UsageException("--webhook-ca is only used with --webhook-url");
        }
        return properties(values, given);
    }

    private static Flags flags() {
        // the manifests' components append flags to the base's (manifests/cert-manager/args-patch.yaml)
        Flags flags = Flags.of().lastGivenWins();
        for (RunFlag flag : RunFlag.values()) {
            Optional<String> option = flag.option();
            if (option.isPresent()) {
                flags = flag.isSwitch() ? flags.switches(option.get()) : flags.valued(option.get());
            }
        }
        return flags;
    }

    private static RunFlag withOption(String option) {
        return Arrays.stream(RunFlag.values()).filter(flag -> flag.option().equals(Optional.of(option))).findFirst()
                .orElseThrow();
    }

    private static Map<RunFlag, String> defaultValues() {
        Map<RunFlag, String> values = new EnumMap<>(RunFlag.class);
        for (RunFlag flag : RunFlag.values()) {
            values.put(flag, flag.defaultValue());
        }
        return values;
    }

    /** The flags' properties in the table's order, then {@value RunFlag#GIVEN}. */
    private static Map<String, String> properties(Map<RunFlag, String> values, Set<RunFlag> given) {
        Map<String, String> properties = new LinkedHashMap<>();
        values.forEach((flag, value) -> properties.put(flag.property(), value));
        properties.put(RunFlag.GIVEN, given.stream().map(RunFlag::flagName).collect(Collectors.joining(",")));
        return properties;
    }

    private static void readable(String flag, String file) throws UsageException {
        if (!file.isEmpty() && !Files.isReadable(Path.of(file))) {
            throw new UsageException(flag + " " + file + ": no such readable file");
        }
    }
}
