package dev.ringmaster.launcher.run;

import dev.ringmaster.ring.RingContract;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The flags of {@code ringmaster run}, in one table: each flag's framework property, its command-line
 * option, its default and the configuration keys it sets; the launcher's parser takes the options from
 * here. A flag whose default is {@code false} is a switch: given, its value is {@code true}. The launcher passes every flag as its {@link #property()} (its
 * default when not given) and the names of the flags given as {@value #GIVEN}; the {@code etc/}
 * files refer to the properties as {@code ${ringmaster.run.<name>}} placeholders at the keys listed
 * here (File Install substitutes framework properties), so a flag not given leaves the files their
 * say; the run-flags bundle puts the value of a flag given over the keys it sets, whatever the files
 * say.
 */
public enum RunFlag {

    KUBECONFIG("kubeconfig", "--kubeconfig", "", new Target(RunFlag.KUBERNETES_PID, "kubeconfig")),
    NAMESPACE("namespace", "--namespace", RingContract.SYSTEM_NAMESPACE, new Target(RunFlag.SHARDER_PID, "leaderElectionNamespace"),
            new Target(RunFlag.SHARDER_PID, "webhookServiceNamespace"), new Target(RunFlag.DELIVERY_PID, "namespace")),
    /** The webhook server reads its certificate there; in self-signed mode the sharder writes it there. */
    TLS_DIR("tlsDir", "--tls-dir", "/etc/ringmaster/tls", new Target(RunFlag.WEBHOOK_PID, "tlsDir"),
            new Target(RunFlag.SHARDER_PID, "webhookCertificateDir"), new Target(RunFlag.METRICS_PID, "tlsDir")),
    /**
     * none: {@code /metrics} on the plain ops listener, to anyone; kubernetes: over HTTPS only, to clients
     * the API server authenticates and allows {@code get} on {@code /metrics}.
     */
    METRICS_AUTH("metricsAuth", "--metrics-auth", "none", new Target(RunFlag.OPS_HTTP_PID, "metricsAuth"),
            new Target(RunFlag.METRICS_PID, "auth")),
    /** Where the webhook's certificate comes from: files, self-signed or cert-manager. */
    WEBHOOK_CERTIFICATES("webhookCertificates", "--webhook-certificates", "files", new Target(RunFlag.SHARDER_PID, "webhookCertificates")),
    /** Not a flag of its own: {@code --webhook-url} sets it to {@code url}. */
    WEBHOOK_MODE("webhookMode", null, "service", new Target(RunFlag.SHARDER_PID, "webhookMode")),
    WEBHOOK_URL("webhookUrl", "--webhook-url", "", new Target(RunFlag.SHARDER_PID, "webhookUrl")),
    WEBHOOK_CA("webhookCaBundleFile", "--webhook-ca", "", new Target(RunFlag.SHARDER_PID, "webhookCaBundleFile")),
    /**
     * The only namespaces whose Leases can be shards, comma-separated; empty: every namespace. A flag, so that a
     * sharder with only namespaced Lease permissions (manifests/namespaced-leases) never starts with a
     * cluster-wide watch, as it would for a moment with the setting delivered by ConfigMap.
     */
    SHARD_LEASE_NAMESPACES("shardLeaseNamespaces", "--shard-lease-namespaces", "", new Target(RunFlag.SHARDER_PID, "shardLeaseNamespaces")),
    DEFAULT_STRATEGY("defaultStrategy", "--default-strategy", RingContract.DEFAULT_STRATEGY, new Target(RunFlag.SHARDER_PID, "defaultStrategy")),
    /** The launcher's own: a Gogo shell on the terminal; configures no component. */
    SHELL("shell", "--shell", "false");

    /** Prefix of the framework properties the flags set. */
    public static final String PREFIX = "ringmaster.run.";
    /** The names of the flags given on the command line, comma-separated. */
    public static final String GIVEN = PREFIX + "given";

    /** The Kubernetes client's configuration. */
    public static final String KUBERNETES_PID = "dev.ringmaster.kubernetes";
    /** The sharder's configuration. */
    public static final String SHARDER_PID = "dev.ringmaster.sharder";
    /** The configuration of the delivery of configuration and bundles by ConfigMaps. */
    public static final String DELIVERY_PID = "dev.ringmaster.delivery";
    /** The HTTPS webhook server's configuration. */
    public static final String WEBHOOK_PID = "dev.ringmaster.webhook";
    /** The plain ops listener's configuration ({@code /healthz}, {@code /readyz}, {@code /metrics}). */
    public static final String OPS_HTTP_PID = "dev.ringmaster.ops.http";
    /** The authenticated HTTPS metrics listener's configuration. */
    public static final String METRICS_PID = "dev.ringmaster.metrics";

    /** A configuration key, by PID. */
    public record Target(String pid, String key) {
    }

    private final String flagName;
    private final String option;
    private final String defaultValue;
    private final List<Target> targets;

    RunFlag(String flagName, String option, String defaultValue, Target... targets) {
        this.flagName = flagName;
        this.option = option;
        this.defaultValue = defaultValue;
        this.targets = List.of(targets);
    }

    /** The flag with this name, if any. */
    public static Optional<RunFlag> named(String name) {
        return Arrays.stream(values()).filter(flag -> flag.flagName.equals(name)).findFirst();
    }

    /** The name in {@value #GIVEN} and after {@value #PREFIX}. */
    public String flagName() {
        return flagName;
    }

    /** How the flag is written on the command line, e.g. {@code --tls-dir}; empty for a setting no flag gives. */
    public Optional<String> option() {
        return Optional.ofNullable(option);
    }

    /** Whether the flag takes no value on the command line: given, it is {@code true}. */
    public boolean isSwitch() {
        return defaultValue.equals("false");
    }

    /** The framework property carrying the flag's value. */
    public String property() {
        return PREFIX + flagName;
    }

    /** The value when the flag is not given. */
    public String defaultValue() {
        return defaultValue;
    }

    /** The configuration keys the flag sets; none for a flag only the launcher reads. */
    public List<Target> targets() {
        return targets;
    }
}
