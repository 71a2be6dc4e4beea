package dev.ringmaster.clustertests.support;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The sharder's install, as docs/install.md tells a user: {@code kubectl apply -k manifests}, then
 * {@code kubectl -n sharding-system rollout status deployment/sharder}.
 *
 * <p>STOPGAP while {@code manifests/} still needs cert-manager (this cluster has none; the base is
 * being changed to install without it, the sharder then making its own webhook certificate): the
 * apply's errors about cert-manager's kinds are tolerated, the Secret {@code sharder-webhook-tls} is
 * made here with openssl, and {@link #injectCa} plays cert-manager's cainjector for the webhook
 * configurations that ask for it. None of this runs once the rendered base names no
 * {@code cert-manager.io} kind.
 */
public final class SharderInstall {

    static final String NAMESPACE = "sharding-system";
    private static final String INJECT_CA_FROM = "cert-manager.io/inject-ca-from";

    private final NodeCluster cluster;
    private boolean stopgapDone;

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
    void install() throws IOException {
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

    private void apply(Path kustomization) throws IOException {
        String rendered = cluster.kubectl("kustomize", kustomization.toString()).orThrow().out();
        boolean needsCertManager = rendered.contains("apiVersion: cert-manager.io/");
        Command.Result apply = cluster.kubectl("apply", "-k", kustomization.toString());
        if (!apply.ok() && !(needsCertManager && onlyAboutCertManager(apply.err()))) {
            throw new IllegalStateException("kubectl apply -k " + kustomization + " failed:\n" + apply.describe());
        }
        if (needsCertManager && !stopgapDone) {
            stopgapCertificate();
            stopgapDone = true;
        }
        Command.Result rollout = cluster.kubectl("-n", NAMESPACE, "rollout", "status", "deployment/sharder", "--timeout=240s");
        if (!rollout.ok()) {
            throw new IllegalStateException("the sharder did not roll out:\n" + rollout.describe() + "\n"
                    + Diagnostics.namespace(cluster, NAMESPACE));
        }
    }

    private static boolean onlyAboutCertManager(String err) {
        return err.lines().filter(line -> !line.isBlank())
                .allMatch(line -> line.contains("cert-manager.io") || line.contains("ensure CRDs are installed first"));
    }

    /** STOPGAP: a CA and the webhook's serving certificate, as cert-manager would have issued them. */
    private void stopgapCertificate() throws IOException {
        Path tls = cluster.work().resolve("stopgap/tls");
        Files.createDirectories(tls);
        String san = "subjectAltName=DNS:sharder.sharding-system.svc,DNS:sharder.sharding-system.svc.cluster.local\n"
                + "extendedKeyUsage=serverAuth\n";
        Files.writeString(tls.resolve("ext"), san);
        for (List<String> step : List.of(
                List.of("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt",
                        "-subj", "/CN=cluster-tests-stopgap-ca", "-days", "3"),
                List.of("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "tls.key", "-out", "tls.csr",
                        "-subj", "/CN=sharder.sharding-system.svc"),
                List.of("openssl", "x509", "-req", "-in", "tls.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                        "-out", "tls.crt", "-days", "3", "-extfile", "ext"))) {
            Command.run(tls, Map.of(), Duration.ofMinutes(1), step).orThrow();
        }
        cluster.kubectl("-n", NAMESPACE, "create", "secret", "generic", "sharder-webhook-tls",
                "--from-file=" + tls.resolve("tls.crt"), "--from-file=" + tls.resolve("tls.key"),
                "--from-file=" + tls.resolve("ca.crt")).orThrow();
        injectCa(cluster.admin(), Base64.getEncoder().encodeToString(Files.readAllBytes(tls.resolve("ca.crt"))));
        System.err.println("cluster-tests: STOPGAP manifests/ need cert-manager, which this cluster lacks: made the"
                + " Secret sharder-webhook-tls (" + tls + ") and inject its CA into webhook configurations asking"
                + " for " + INJECT_CA_FROM);
    }

    /**
     * STOPGAP: what cert-manager's cainjector does for {@code inject-ca-from: sharding-system/sharder-webhook}:
     * writes the CA into every webhook of a configuration carrying the annotation whose caBundle is empty.
     * The sharder carries a caBundle someone else injected over when it updates its configurations.
     */
    private static void injectCa(KubernetesClient admin, String caBundle) {
        String wanted = NAMESPACE + "/sharder-webhook";
        admin.admissionRegistration().v1().mutatingWebhookConfigurations().inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(MutatingWebhookConfiguration config) {
                if (wanted.equals(annotation(config.getMetadata().getAnnotations()))
                        && config.getWebhooks().stream().anyMatch(hook -> blank(hook.getClientConfig().getCaBundle()))) {
                    admin.admissionRegistration().v1().mutatingWebhookConfigurations()
                            .withName(config.getMetadata().getName()).edit(current -> {
                                current.getWebhooks().forEach(hook -> hook.getClientConfig().setCaBundle(caBundle));
                                return current;
                            });
                }
            }

            @Override
            public void onUpdate(MutatingWebhookConfiguration before, MutatingWebhookConfiguration config) {
                onAdd(config);
            }

            @Override
            public void onDelete(MutatingWebhookConfiguration config, boolean unknown) {
            }
        }, 5_000);
        admin.admissionRegistration().v1().validatingWebhookConfigurations().inform(new ResourceEventHandler<>() {
            @Override
            public void onAdd(ValidatingWebhookConfiguration config) {
                if (wanted.equals(annotation(config.getMetadata().getAnnotations()))
                        && config.getWebhooks().stream().anyMatch(hook -> blank(hook.getClientConfig().getCaBundle()))) {
                    admin.admissionRegistration().v1().validatingWebhookConfigurations()
                            .withName(config.getMetadata().getName()).edit(current -> {
                                current.getWebhooks().forEach(hook -> hook.getClientConfig().setCaBundle(caBundle));
                                return current;
                            });
                }
            }

            @Override
            public void onUpdate(ValidatingWebhookConfiguration before, ValidatingWebhookConfiguration config) {
                onAdd(config);
            }

            @Override
            public void onDelete(ValidatingWebhookConfiguration config, boolean unknown) {
            }
        }, 5_000);
    }

    private static String annotation(Map<String, String> annotations) {
        return annotations == null ? null : annotations.get(INJECT_CA_FROM);
    }

    private static boolean blank(String value) {
        return value == null || value.isBlank();
    }
}
