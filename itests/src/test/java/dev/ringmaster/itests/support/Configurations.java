package dev.ringmaster.itests.support;

import java.io.IOException;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.Map;
import java.util.Optional;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;

/** Config Admin as the in-framework tests use it, from the probe's bundle context. */
public final class Configurations {

    private Configurations() {
    }

    /** Creates or updates a configuration; leaves it alone when it already has these values. */
    public static void configure(BundleContext context, String pid, Map<String, Object> values) throws IOException {
        ServiceReference<ConfigurationAdmin> reference = Until.value(Until.IN_PROCESS, "the ConfigurationAdmin service",
                () -> Optional.ofNullable(context.getServiceReference(ConfigurationAdmin.class)));
        ConfigurationAdmin admin = context.getService(reference);
        try {
            Configuration configuration = admin.getConfiguration(pid, "?");
            Dictionary<String, Object> current = configuration.getProperties();
            boolean same = current != null && values.entrySet().stream()
                    .allMatch(entry -> entry.getValue().equals(current.get(entry.getKey())));
            if (!same) {
                configuration.update(new Hashtable<>(values));
            }
        } finally {
            context.ungetService(reference);
        }
    }
}
