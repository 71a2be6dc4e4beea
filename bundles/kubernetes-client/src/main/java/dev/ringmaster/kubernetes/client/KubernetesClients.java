package dev.ringmaster.kubernetes.client;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import java.util.function.Consumer;

/** Builds fabric8 clients that work inside the framework. */
public final class KubernetesClients {

    private KubernetesClients() {
    }

    /** A client for the configuration, its HTTP client adjusted by {@code http} (interceptors, say). */
    public static KubernetesClient build(Config config, Consumer<HttpClient.Builder> http) {
        // fabric8 loads its implementation through the thread's context class loader first; in a
        // framework that loader may see another fabric8 (a host's class path), so point it at ours.
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(KubernetesClientBuilder.class.getClassLoader());
        try {
            // Naming the HTTP client avoids a ServiceLoader lookup, which OSGi class loading can miss.
            return new KubernetesClientBuilder().withConfig(config).withHttpClientFactory(new JdkHttpClientFactory())
                    .withHttpClientBuilderConsumer(http).build();
        } finally {
            thread.setContextClassLoader(previous);
        }
    }
}
