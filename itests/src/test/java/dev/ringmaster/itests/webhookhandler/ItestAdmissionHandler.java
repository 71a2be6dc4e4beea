package dev.ringmaster.itests.webhookhandler;

import dev.ringmaster.ring.spi.AdmissionHandler;
import dev.ringmaster.ring.spi.AdmissionRequest;
import dev.ringmaster.ring.spi.AdmissionResponse;
import dev.ringmaster.ring.spi.AdmissionResponse.PatchOperation;
import java.util.Hashtable;
import java.util.List;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;

/**
 * The whole of a handler bundle that {@code WebhookIT} builds at run time (this class file and a
 * manifest): it registers itself as an admission handler for {@value #PREFIX} and labels what it
 * admits. One class, no lambdas, so the bundle needs no other class file.
 */
public final class ItestAdmissionHandler implements BundleActivator, AdmissionHandler {

    public static final String NAME = "itest-bundle";
    public static final String PREFIX = "/webhooks/itest-bundle/";
    public static final String LABEL_PATH = "/metadata/labels/itest-bundle";

    @Override
    public void start(BundleContext context) {
        Hashtable<String, Object> properties = new Hashtable<>();
        properties.put(AdmissionHandler.NAME, NAME);
        properties.put(AdmissionHandler.PATH_PREFIX, PREFIX);
        context.registerService(AdmissionHandler.class, this, properties);
    }

    @Override
    public void stop(BundleContext context) {
        // the framework unregisters the service with the bundle
    }

    @Override
    public AdmissionResponse handle(String path, AdmissionRequest request) {
        return AdmissionResponse.patch(List.of(new PatchOperation("add", LABEL_PATH, request.name())));
    }
}
