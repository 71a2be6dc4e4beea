package dev.ringmaster.examples.josdk;

import dev.ringmaster.examples.checksum.ChecksumReconciler;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Secret;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.List;

/**
 * The checksum controller's job as a JOSDK reconciler: for each ConfigMap a Secret
 * {@code checksums-<configmap>} with the SHA-256 of every data key, controlled by the ConfigMap
 * ({@link ChecksumReconciler} does it and prints the reconcile line). The Secrets are a secondary
 * resource: a change to one reconciles its ConfigMap, which repairs it. Nothing here knows about
 * sharding except the selector of the Secret informer.
 */
@ControllerConfiguration(name = "checksums")
public final class ChecksumOperatorReconciler implements Reconciler<ConfigMap> {

    private final ChecksumReconciler checksums;
    private final String secretSelector;

    /**
     * @param checksums      writes the Secret and prints the reconcile line
     * @param secretSelector label selector of the Secrets to watch: the shard's
     */
    public ChecksumOperatorReconciler(ChecksumReconciler checksums, String secretSelector) {
        this.checksums = checksums;
        this.secretSelector = secretSelector;
    }

    @Override
    public UpdateControl<ConfigMap> reconcile(ConfigMap configMap, Context<ConfigMap> context) {
        checksums.reconcile(configMap);
        return UpdateControl.noUpdate();
    }

    @Override
    public List<EventSource<?, ConfigMap>> prepareEventSources(EventSourceContext<ConfigMap> context) {
        // mapped to the ConfigMap by the controller reference (JOSDK's default for an owned secondary)
        return List.of(new InformerEventSource<>(InformerEventSourceConfiguration.from(Secret.class, ConfigMap.class)
                .withLabelSelector(secretSelector)
                .withNamespacesInheritedFromController()
                .build(), context));
    }
}
