package dev.ringmaster.webhook.app;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** Configuration of the webhook server, PID {@value WebhookComponent#PID}. */
@ObjectClassDefinition(
        name = "Ringmaster webhook",
        description = "HTTPS server answering admission.k8s.io/v1 AdmissionReviews with the admission handler services")
public @interface WebhookConfig {

    @AttributeDefinition(description = "Address to listen on; 0.0.0.0 listens on all interfaces")
    String host() default "0.0.0.0";

    @AttributeDefinition(description = "TCP port; 0 picks a free port, published in the service property "
            + WebhookComponent.PORT_PROPERTY, min = "0", max = "65535")
    int port() default 9443;

    @AttributeDefinition(description = "Directory with the PEM certificate chain and private key, "
            + "as cert-manager mounts a Secret of type kubernetes.io/tls")
    String tlsDir() default "/etc/ringmaster/tls";

    @AttributeDefinition(description = "File name of the certificate chain (server certificate first) in tlsDir")
    String certFile() default "tls.crt";

    @AttributeDefinition(description = "File name of the private key in tlsDir: PKCS#8, PKCS#1 RSA or SEC1 EC, unencrypted")
    String keyFile() default "tls.key";

    @AttributeDefinition(description = "Largest accepted request body in bytes; larger ones are answered with 413",
            min = "1")
    int maxRequestBytes() default 3 * 1024 * 1024;

    @AttributeDefinition(description = "A connection without traffic for this long is closed (ms)", min = "1")
    long idleTimeoutMillis() default 30_000;

    @AttributeDefinition(description = "A request body must have arrived completely this long after the request "
            + "head, else 408 (ms)", min = "1")
    long readTimeoutMillis() default 10_000;

    @AttributeDefinition(description = "How often the certificate files are checked for a change (ms)", min = "1")
    long reloadIntervalMillis() default 5_000;

    @AttributeDefinition(description = "How long a stop waits for requests in flight (ms)", min = "0")
    long shutdownTimeoutMillis() default 10_000;

    @AttributeDefinition(description = "Most threads serving connections and requests", min = "8")
    int maxThreads() default 64;
}
