package dev.ringmaster.runflags;

import java.util.Arrays;
import java.util.Dictionary;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.ConfigurationPlugin;

/**
 * The flags given to {@code ringmaster run} win over {@code etc/}: every configuration Config Admin
 * hands to a component passes through here, and the keys a given flag sets are replaced with the
 * flag's value, whatever the file says. Flags not given leave the files alone (their
 * {@code ${ringmaster.run.*}} placeholders then take the flags' defaults).
 *
 * <p>The launcher passes each flag as the framework property {@code ringmaster.run.<name>} and the
 * names of the flags actually given, comma-separated, as {@value #GIVEN}.
 */
final class RunFlagOverrides implements ConfigurationPlugin {

    static final String PREFIX = "ringmaster.run.";
    static final String GIVEN = PREFIX + "given";

    private static final String KUBERNETES = "dev.ringmaster.kubernetes";
    private static final String SHARDER = "dev.ringmaster.sharder";
    private static final String WEBHOOK = "dev.ringmaster.webhook";

    /** A configuration key, by PID. */
    record Target(String pid, String key) {
    }

    /** The keys each flag sets; a flag not listed here (such as {@code shell}) configures nothing. */
    static final Map<String, List<Target>> TARGETS = Map.of(
            "kubeconfig", List.of(new Target(KUBERNETES, "kubeconfig")),
            "namespace", List.of(new Target(SHARDER, "leaderElectionNamespace"),
                    new Target(SHARDER, "webhookServiceNamespace")),
            "tlsDir", List.of(new Target(WEBHOOK, "tlsDir")),
            "webhookMode", List.of(new Target(SHARDER, "webhookMode")),
            "webhookUrl", List.of(new Target(SHARDER, "webhookUrl")),
            "webhookCaBundleFile", List.of(new Target(SHARDER, "webhookCaBundleFile")),
            "defaultStrategy", List.of(new Target(SHARDER, "defaultStrategy")));

    private final Map<String, Map<String, String>> overridesByPid = new LinkedHashMap<>();

    /** @param frameworkProperty the framework's properties, e.g. {@code BundleContext::getProperty} */
    RunFlagOverrides(Function<String, String> frameworkProperty) {
        String given = frameworkProperty.apply(GIVEN);
        if (given == null) {
            return;
        }
        Arrays.stream(given.split(",")).map(String::trim).filter(TARGETS::containsKey).forEach(flag -> {
            String value = frameworkProperty.apply(PREFIX + flag);
            if (value != null) {
                TARGETS.get(flag).forEach(target -> overridesByPid
                        .computeIfAbsent(target.pid(), pid -> new LinkedHashMap<>()).put(target.key(), value));
            }
        });
    }

    /** True when no flag sets anything: there is nothing to register. */
    boolean isEmpty() {
        return overridesByPid.isEmpty();
    }

    /** The keys this replaces, by PID. */
    Map<String, Map<String, String>> overrides() {
        return overridesByPid;
    }

    @Override
    public void modifyConfiguration(ServiceReference<?> reference, Dictionary<String, Object> properties) {
        Map<String, String> overrides = overridesByPid.get(properties.get(Constants.SERVICE_PID));
        if (overrides != null) {
            overrides.forEach(properties::put);
        }
    }
}
