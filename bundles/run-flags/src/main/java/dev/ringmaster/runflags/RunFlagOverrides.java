package dev.ringmaster.runflags;

import dev.ringmaster.launcher.run.RunFlag;
import java.util.Arrays;
import java.util.Dictionary;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.ConfigurationPlugin;

/**
 * The flags given to {@code ringmaster run} win over {@code etc/}: every configuration Config Admin
 * hands to a component passes through here, and the keys a given flag sets ({@link RunFlag#targets()})
 * are replaced with the flag's value, whatever the file says. Flags not given leave the files alone
 * (their {@code ${ringmaster.run.*}} placeholders then take the flags' defaults).
 */
final class RunFlagOverrides implements ConfigurationPlugin {

    private final Map<String, Map<String, String>> overridesByPid = new LinkedHashMap<>();

    /** @param frameworkProperty the framework's properties, e.g. {@code BundleContext::getProperty} */
    RunFlagOverrides(Function<String, String> frameworkProperty) {
        String given = frameworkProperty.apply(RunFlag.GIVEN);
        if (given == null) {
            return;
        }
        Arrays.stream(given.split(",")).map(String::trim).map(RunFlag::named).flatMap(Optional::stream).forEach(flag -> {
            String value = frameworkProperty.apply(flag.property());
            if (value != null) {
                flag.targets().forEach(target -> overridesByPid
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
