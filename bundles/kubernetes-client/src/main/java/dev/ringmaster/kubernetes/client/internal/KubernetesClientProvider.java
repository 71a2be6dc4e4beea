package dev.ringmaster.kubernetes.client.internal;

import dev.ringmaster.kubernetes.client.KubernetesClients;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Dictionary;
import java.util.Hashtable;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the {@link KubernetesClient} the sharder and plug-ins talk to the API server with, once a
 * configuration exists (so offline commands such as {@code simulate} never build one). With empty
 * settings fabric8 finds the cluster as kubectl does: in-cluster service account, else
 * {@code $KUBECONFIG} or {@code ~/.kube/config}. A configuration change replaces the client.
 */
@Component(configurationPid = KubernetesClientProvider.PID, configurationPolicy = ConfigurationPolicy.REQUIRE,
        service = {})
@Designate(ocd = KubernetesClientProvider.Settings.class)
public class KubernetesClientProvider {

    public static final String PID = "dev.ringmaster.kubernetes";

    private static final Logger LOG = LoggerFactory.getLogger(KubernetesClientProvider.class);

    /**
     * How often fabric8 retries a failed request itself (after 100 ms, then 200 ms). Its default, 10
     * doubling retries, holds one call up to 100 s against an unreachable API server, long after the
     * server is back; every user of this client retries on its own schedule (work queues, leader
     * election, informers), which is where a retry belongs.
     */
    static final int REQUEST_RETRIES = 2;

    @ObjectClassDefinition(name = "Ringmaster Kubernetes client",
            description = "How the sharder reaches the API server")
    public @interface Settings {

        @AttributeDefinition(description = "kubeconfig file; empty: in-cluster, else $KUBECONFIG or ~/.kube/config")
        String kubeconfig() default "";

        @AttributeDefinition(description = "API server URL overriding the kubeconfig's; empty: as configured")
        String masterUrl() default "";

        @AttributeDefinition(description = "Trust any server certificate (test servers only)")
        boolean trustCerts() default false;
    }

    private KubernetesClient client;
    private ServiceRegistration<KubernetesClient> registration;

    @Activate
    void activate(Settings settings, BundleContext context) throws Exception {
        client = create(settings);
        Dictionary<String, Object> properties = new Hashtable<>();
        properties.put("masterUrl", client.getMasterUrl().toString());
        registration = context.registerService(KubernetesClient.class, client, properties);
        LOG.info("Kubernetes client for {}", client.getMasterUrl());
    }

    @Deactivate
    void deactivate() {
        if (registration != null) {
            registration.unregister();
        }
        if (client != null) {
            client.close();
        }
    }

    /** Builds the client; no request is made, so an unreachable API server is not an error here. */
    static KubernetesClient create(Settings settings) throws Exception {
        Config config;
        if (settings.kubeconfig().isEmpty()) {
            config = Config.autoConfigure(null);
        } else {
            Path file = Path.of(settings.kubeconfig());
            if (!Files.isReadable(file)) {
                throw new IllegalArgumentException("kubeconfig " + file + " is not a readable file");
            }
            config = Config.fromKubeconfig(Files.readString(file));
        }
        ConfigBuilder builder = new ConfigBuilder(config).withRequestRetryBackoffLimit(REQUEST_RETRIES);
        if (!settings.masterUrl().isEmpty()) {
            builder.withMasterUrl(settings.masterUrl());
        }
        if (settings.trustCerts()) {
            builder.withTrustCerts(true).withDisableHostnameVerification(true);
        }
        return KubernetesClients.build(builder.build(), http -> { });
    }
}
