package dev.ringmaster.runflags;

import java.util.Dictionary;
import java.util.Hashtable;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;
import org.osgi.service.cm.ConfigurationPlugin;

/**
 * Registers the {@link RunFlagOverrides} plug-in when {@code ringmaster run} was given flags. The
 * service goes with the bundle when it stops.
 */
public final class Activator implements BundleActivator {

    /** Within [0, 1000], the range in which a plug-in may change what it is given. */
    static final int RANKING = 500;

    @Override
    public void start(BundleContext context) {
        RunFlagOverrides overrides = new RunFlagOverrides(context::getProperty);
        if (!overrides.isEmpty()) {
            Dictionary<String, Object> properties = new Hashtable<>();
            properties.put(ConfigurationPlugin.CM_RANKING, RANKING);
            context.registerService(ConfigurationPlugin.class, overrides, properties);
        }
    }

    @Override
    public void stop(BundleContext context) {
        // the framework unregisters the plug-in
    }
}
