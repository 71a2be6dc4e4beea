package dev.ringmaster.sharder.app;

import dev.ringmaster.ring.RingContract;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.osgi.service.metatype.annotations.Option;

/** Configuration of the sharder (PID {@value SharderComponent#PID}). */
@ObjectClassDefinition(name = "Ringmaster sharder", description = "Assignment and rebalancing of ClusterRings")
public @interface SharderSettings {

    @AttributeDefinition(description = "Partitioning strategy of rings without spec.strategy")
    String defaultStrategy() default RingContract.DEFAULT_STRATEGY;

    @AttributeDefinition(description = "Name of the lease detector service that judges shards")
    String leaseDetector() default "default";

    @AttributeDefinition(description = "Name of the resource interpreter service that keys objects")
    String resourceInterpreter() default "default";

    @AttributeDefinition(description = "Objects per list request while rebalancing", min = "1")
    int pageSize() default 500;

    @AttributeDefinition(description = "Label writes in flight at once while rebalancing", min = "1")
    int concurrentMoves() default 50;

    @AttributeDefinition(description = "Objects of one ring in drain at once; more wait for a later pass", min = "0")
    int moveBudget() default 5000;

    @AttributeDefinition(description = "Seconds between periodic rebalancing passes of a ring", min = "1")
    int resyncSeconds() default 300;

    @AttributeDefinition(description = "Comma-separated namespaces whose Leases can be shards: the sharder watches "
            + "shard Leases only there, one informer per namespace, and needs Lease permissions only there "
            + "(manifests/namespaced-leases); empty: every namespace, watched cluster-wide")
    String shardLeaseNamespaces() default "";

    @AttributeDefinition(description = "Namespace of the leader election Lease")
    String leaderElectionNamespace() default "sharding-system";

    @AttributeDefinition(description = "Name of the leader election Lease")
    String leaderElectionLease() default "sharder";

    @AttributeDefinition(description = "This replica's identity in leader election; empty: $HOSTNAME")
    String identity() default "";

    @AttributeDefinition(description = "How the API server reaches the webhook: the in-cluster service, a URL, or off",
            options = {@Option(value = "service"), @Option(value = "url"), @Option(value = "off")})
    String webhookMode() default "service";

    String webhookServiceNamespace() default "sharding-system";

    String webhookServiceName() default "sharder";

    int webhookServicePort() default 443;

    @AttributeDefinition(description = "Base https URL of the webhook in url mode; the ring's path is appended")
    String webhookUrl() default "";

    @AttributeDefinition(description = "PEM file with the CA that signed the webhook's certificate")
    String webhookCaBundleFile() default "";

    @AttributeDefinition(description = "namespace/name of a cert-manager Certificate whose CA cert-manager injects")
    String webhookCertManagerCertificate() default "";

    @AttributeDefinition(description = "Where the webhook's certificate comes from: files (tlsDir, with "
            + "webhookCaBundleFile or webhookCertManagerCertificate for the CA), self-signed (the sharder keeps a CA "
            + "and the serving certificate in Secrets and writes them into webhookCertificateDir), or cert-manager "
            + "(webhookCertManagerCertificate names the Certificate)",
            options = {@Option(value = "files"), @Option(value = "self-signed"), @Option(value = "cert-manager")})
    String webhookCertificates() default "files";

    @AttributeDefinition(description = "self-signed: the webhook server's TLS directory (its tlsDir), where the "
            + "sharder writes tls.crt, tls.key and ca.crt")
    String webhookCertificateDir() default "/etc/ringmaster/tls";

    @AttributeDefinition(description = "self-signed: lifetime of a new CA, ISO-8601 (P3650D: 10 years); renewed "
            + "when less than a third is left")
    String webhookCaValidity() default "P3650D";

    @AttributeDefinition(description = "self-signed: lifetime of a new serving certificate, ISO-8601 (P365D); "
            + "renewed when less than a third is left")
    String webhookCertificateValidity() default "P365D";

    @AttributeDefinition(description = "Comma-separated names of ValidatingWebhookConfigurations that call this "
            + "webhook server (the label guard's): the sharder gives them the webhook's CA as well")
    String webhookValidatingConfigurations() default "";
}
