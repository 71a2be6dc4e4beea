package dev.ringmaster.clustertests.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

/**
 * The sharder's install, as docs/install.md tells a user: {@code kubectl apply -k manifests}, then
 * {@code kubectl -n sharding-system rollout status deployment/sharder --timeout=3m}. Nothing else: the
 * sharder makes its webhook certificates itself and writes their CA into the webhook configurations
 * (the cluster has no cert-manager, and the base does not need it).
 */
public final class SharderInstall {

    static final String NAMESPACE = "sharding-system";

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

    /** The base install: {@code kubectl apply -k manifests}, then the rollout. */
    void install() {
        apply(Path.of("manifests"));
    }

    /**
     * The install with {@code extras}, as the docs tell a user to combine them: a kustomization of
     * one's own ({@code target/cluster/install/}) listing the base and the optional parts; the
     * sharder's own settings in a {@code dev.ringmaster.sharder.cfg} of the overlay, merged into the
     * generated {@code sharder-config} (docs/operating.md). No extras: the base's objects again.
     */
    void install(Set<Extra> extras) throws IOException {
        Path overlay = cluster.work().resolve("install");
        Files.createDirectories(overlay);
        Path manifests = cluster.root().resolve("manifests");
        String base = overlay.relativize(manifests).toString();
        StringBuilder kustomization = new StringBuilder("""
                # written by cluster-tests: the base install and the optional parts a scenario added
                apiVersion: kustomize.config.k8s.io/v1beta1
                kind: Kustomization
                resources:
                - %s
                """.formatted(base));
        if (extras.contains(Extra.POD_READINESS)) {
            kustomization.append("- ").append(base).append("/pod-readiness\n");
            String settings = Files.readString(manifests.resolve("etc/dev.ringmaster.sharder.cfg"))
                    .replaceFirst("(?m)^leaseDetector\\s*=.*$", "leaseDetector = pod-readiness");
            Files.writeString(overlay.resolve("dev.ringmaster.sharder.cfg"), settings);
            kustomization.append("""
                    configMapGenerator:
                    - name: sharder-config
                      namespace: sharding-system
                      behavior: merge
                      files:
                      - dev.ringmaster.sharder.cfg
                    """);
        }
        if (extras.contains(Extra.LABEL_GUARD)) {
            kustomization.append("components:\n- ").append(base).append("/label-guard\n");
        }
        Files.writeString(overlay.resolve("kustomization.yaml"), kustomization.toString());
        apply(overlay);
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
