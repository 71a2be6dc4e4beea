package dev.ringmaster.ring.spi;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Answers admission requests for the webhook paths it registers. The webhook bundle tracks these
 * services as a whiteboard: a handler that comes or goes adds or removes its paths.
 */
@ConsumerType
public interface AdmissionHandler {

    /** Service property carrying the handler's name. */
    String NAME = "name";

    /**
     * Service property with the path prefix (String) the handler serves, e.g.
     * {@code /webhooks/sharder/clusterring/}; the longest matching prefix wins.
     */
    String PATH_PREFIX = "ringmaster.webhook.path.prefix";

    /**
     * @param path    the request path, starting with the handler's prefix
     * @param request the admission request
     * @return the response; its uid is set by the webhook from the request
     */
    AdmissionResponse handle(String path, AdmissionRequest request);
}
