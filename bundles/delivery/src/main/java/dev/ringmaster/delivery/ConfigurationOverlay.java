package dev.ringmaster.delivery;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import org.osgi.framework.Constants;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.cm.ConfigurationPlugin;

/**
 * Delivered configuration values laid over those of {@code etc/}: a Config Admin plug-in that sets
 * the delivered keys of a PID in every configuration handed to a component, whatever the file says.
 * Ranked below the {@code run} flags' plug-in, so a flag still wins. Keys a ConfigMap no longer sets
 * fall back to the file.
 *
 * <p>Config Admin calls plug-ins only when it delivers a configuration, so a changed overlay is
 * followed by a write of each affected configuration ({@link #REVISION}); a PID with no configuration
 * yet (no file in {@code etc/}) gets one, marked {@link #CREATED}, and loses it with its last
 * delivered key.
 */
final class ConfigurationOverlay implements ConfigurationPlugin {

    /** Below the run flags' plug-in (500): plug-ins ranked higher are called later and win. */
    static final int RANKING = 400;
    /** Changes with the delivered keys of the PID, so Config Admin hands the configuration out again. */
    static final String REVISION = "ringmaster.delivery.revision";
    /** On configurations that exist only because a ConfigMap set keys of their PID. */
    static final String CREATED = "ringmaster.delivery.created";

    private final AtomicReference<Map<String, Map<String, String>>> overlay = new AtomicReference<>(Map.of());

    @Override
    public void modifyConfiguration(ServiceReference<?> reference, Dictionary<String, Object> properties) {
        Map<String, String> delivered = overlay.get().get(String.valueOf(properties.get(Constants.SERVICE_PID)));
        if (delivered != null) {
            delivered.forEach(properties::put);
        }
    }

    /** The delivered values now in force, by PID. */
    Map<String, Map<String, String>> current() {
        return overlay.get();
    }

    /** What {@link #apply} did: the PIDs handed out again, and why others could not be. */
    record Applied(Set<String> redelivered, Map<String, String> failures) {
    }

    /**
     * Lays {@code configurations} over the files and has Config Admin hand every configuration whose
     * delivered keys changed to its component again.
     */
    Applied apply(Map<String, Map<String, String>> configurations, ConfigurationAdmin admin) {
        Map<String, Map<String, String>> previous = overlay.getAndSet(Map.copyOf(configurations));
        Set<String> changed = new TreeSet<>(previous.keySet());
        changed.addAll(configurations.keySet());
        changed.removeIf(pid -> Objects.equals(previous.get(pid), configurations.get(pid)));
        Map<String, String> failures = new TreeMap<>();
        for (String pid : changed) {
            try {
                redeliver(pid, configurations.get(pid), admin);
            } catch (IOException | InvalidSyntaxException | RuntimeException e) {
                failures.put(pid, "Config Admin did not take configuration " + pid + ": " + e);
            }
        }
        changed.removeAll(failures.keySet());
        return new Applied(changed, failures);
    }

    private static void redeliver(String pid, Map<String, String> delivered, ConfigurationAdmin admin)
            throws IOException, InvalidSyntaxException {
        Configuration[] existing = admin.listConfigurations("(" + Constants.SERVICE_PID + "=" + pid + ")");
        Configuration configuration = existing == null ? null : existing[0];
        if (configuration == null) {
            if (delivered != null) {
                Dictionary<String, Object> created = new Hashtable<>();
                created.put(CREATED, "true");
                admin.getConfiguration(pid, "?").update(withRevision(created, delivered));
            }
        } else if (delivered == null && configuration.getProperties().get(CREATED) != null) {
            configuration.delete();
        } else {
            update(configuration, withRevision(configuration.getProperties(), delivered));
        }
    }

    /**
     * Writes a configuration, also one that File Install made read-only because its file is (the
     * image's etc/ in a pod): read-only again afterwards, so that nothing else writes it.
     */
    private static void update(Configuration configuration, Dictionary<String, Object> properties) throws IOException {
        boolean readOnly = configuration.getAttributes().contains(Configuration.ConfigurationAttribute.READ_ONLY);
        if (readOnly) {
            configuration.removeAttributes(Configuration.ConfigurationAttribute.READ_ONLY);
        }
        try {
            configuration.update(properties);
        } finally {
            if (readOnly) {
                configuration.addAttributes(Configuration.ConfigurationAttribute.READ_ONLY);
            }
        }
    }

    private static Dictionary<String, Object> withRevision(Dictionary<String, Object> properties,
            Map<String, String> delivered) {
        Dictionary<String, Object> copy = new Hashtable<>();
        for (String key : Collections.list(properties.keys())) {
            copy.put(key, properties.get(key));
        }
        copy.put(REVISION, delivered == null ? "none" : Delivery.sha256(delivered.toString().getBytes(StandardCharsets.UTF_8)));
        return copy;
    }
}
