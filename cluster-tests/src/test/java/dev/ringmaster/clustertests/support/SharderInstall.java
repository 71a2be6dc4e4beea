package dev.ringmaster.clustertests.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;

/**
 * The sharder's install, as docs/install.md tells a user on Kubernetes 1.30 or later: a kustomization of
 * one's own with the base and the Component {@code manifests/admission-policies} ({@code kubectl apply -k}),
 * then {@code kubectl -n sharding-system rollout status deployment/sharder --timeout=3m}, so that every
 * scenario runs with the sharder held to its own writes. Nothing else: the sharder makes its webhook
 * certificates itself and writes their CA into the webhook configurations (the cluster has no
 * cert-manager, and the base does not need it).
 */
public final class SharderInstall {

    static final String NAMESPACE = "sharding-system";
    /** The overlay's delivery ConfigMap: the sharder settings the extras need. */
    static final String SETTINGS = "cluster-tests-settings";
    /** The Component every install of the tier has (docs/install.md, "Admission policies"). */
    static final String ADMISSION_POLICIES = "admission-policies";

    private final NodeCluster cluster;

    SharderInstall(NodeCluster cluster) {
        this.cluster = cluster;
    }

    /** The optional parts of docs/install.md a scenario may add to the base. */
    public enum Extra {
        /** {@code manifests/label-guard}, a kustomize Component (docs/label-guard.md). */
        LABEL_GUARD,
        /** {@code manifests/pod-readiness} and {@code leaseDetector = pod-readiness} in the sharder's configuration (docs/plugins.md). */
        POD_READINESS
    }

    /** The base install with the admission policies, then the rollout. */
    void install() throws IOException {
        install(Set.of());
    }

    /**
     * The install with {@code extras}, as the docs tell a user to combine them: a kustomization of
     * one's own ({@code target/cluster/install/}) listing the base, the admission policies and the
     * optional parts; the sharder's own settings in a delivery ConfigMap of the overlay
     * (docs/operating.md), which the running replicas apply (no rollout): this returns once every
     * replica has. No extras: the base with the admission policies, and the overlay's settings emptied.
     */
    void install(Set<Extra> extras) throws IOException {
        Path overlay = cluster.work().resolve("install");
        Files.createDirectories(overlay);
        Path manifests = cluster.root().resolve("manifests");
        String base = overlay.relativize(manifests).toString();
        String settings = "# the sharder settings of the scenarios' extras\n";
        String resources = "- " + base + "\n";
        if (extras.contains(Extra.POD_READINESS)) {
            resources += "- " + base + "/pod-readiness\n";
            settings += "leaseDetector = pod-readiness\n";
        }
        Files.writeString(overlay.resolve("dev.ringmaster.sharder.cfg"), settings);
        StringBuilder kustomization = new StringBuilder("""
                # written by cluster-tests: the base install and the optional parts a scenario added
                apiVersion: kustomize.config.k8s.io/v1beta1
                kind: Kustomization
                resources:
                %sconfigMapGenerator:
                - name: %s
                  namespace: sharding-system
                  files:
                  - dev.ringmaster.sharder.cfg
                  options:
                    disableNameSuffixHash: true
                    labels:
                      ringmaster.dev/delivery: "true"
                """.formatted(resources, SETTINGS));
        kustomization.append("components:\n- ").append(base).append("/").append(ADMISSION_POLICIES).append("\n");
        if (extras.contains(Extra.LABEL_GUARD)) {
            kustomization.append("- ").append(base).append("/label-guard\n");
        }
        Files.writeString(overlay.resolve("kustomization.yaml"), kustomization.toString());
        apply(overlay);
        Sharder sharder = new Sharder(cluster);
        sharder.awaitDelivered(Duration.ofSeconds(60));
        sharder.printReadiness("install");
    }

    private void apply(Path kustomization) {
        cluster.kubectl("apply", "-k", kustomization.toString()).orThrow();
        Command.Result rollout = cluster.kubectl("-n", NAMESPACE, "rollout", "status", "deployment/sharder", "--timeout=3m");
        if (!rollout.ok()) {
            throw new IllegalStateException("the sharder did not roll out:\n" + rollout.describe() + "\n"
                    + Diagnostics.namespace(cluster, NAMESPACE));
        }
    }
}
