/**
 * How a fabric8 {@link io.fabric8.kubernetes.client.KubernetesClient} is built inside the framework
 * ({@link dev.ringmaster.kubernetes.client.KubernetesClients}), and the informer event handlers the
 * sharder and the test tiers share ({@link dev.ringmaster.kubernetes.client.EventHandlers}). The client the components share is
 * the {@code KubernetesClient} service this bundle publishes once {@code dev.ringmaster.kubernetes}
 * is configured; that type belongs to the fabric8 client bundle, not to this package.
 */
@Export
@Version("1.1.0")
package dev.ringmaster.kubernetes.client;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
