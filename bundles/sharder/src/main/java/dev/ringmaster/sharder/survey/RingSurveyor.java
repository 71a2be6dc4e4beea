package dev.ringmaster.sharder.survey;

import dev.ringmaster.ring.RingKind;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.osgi.annotation.versioning.ProviderType;

/**
 * Reads one ring from the cluster, read-only, with the sharder's own code: its ring object, its shard
 * Leases judged by the default lease detector now, and the objects of its resources in the namespaces
 * it selects, keyed by the ring's interpreters. A DS service of the sharder bundle, active without any
 * configuration.
 */
@ProviderType
public interface RingSurveyor {

    /**
     * @param client the API server to read, with the caller's credentials
     * @throws RingSurveyException        if there is no such ring, it is invalid, or a plug-in it needs is not deployed
     * @throws KubernetesClientException if a request fails (unreachable, forbidden, …)
     */
    RingSurvey survey(KubernetesClient client, RingKind kind, String name) throws RingSurveyException;
}
