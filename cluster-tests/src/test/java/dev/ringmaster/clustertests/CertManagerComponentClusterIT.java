package dev.ringmaster.clustertests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.clustertests.support.Command;
import dev.ringmaster.clustertests.support.NodeCluster;
import dev.ringmaster.clustertests.support.PolicedScenarios;
import dev.ringmaster.clustertests.support.TimedScenarios;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The cert-manager path of docs/install.md, kept beside the default one: this cluster has no
 * cert-manager, so its Issuer and Certificate CRDs are applied (structural schemas of the fields the
 * component uses, {@code cert-manager-crds.yaml}) and the install with the Component
 * {@code manifests/cert-manager} goes to the API server as a server-side dry run with strict field
 * validation. Nothing of the running install changes.
 */
@ExtendWith({TimedScenarios.class, PolicedScenarios.class})
class CertManagerComponentClusterIT {

    private static NodeCluster cluster;
    private static Path crds;

    @BeforeAll
    static void certManagerCrds() throws IOException {
        cluster = NodeCluster.get();
        crds = cluster.work().resolve("cert-manager-crds.yaml");
        try (var in = CertManagerComponentClusterIT.class.getResourceAsStream("/cert-manager-crds.yaml")) {
            Files.write(crds, in.readAllBytes());
        }
        cluster.kubectl("apply", "-f", crds.toString()).orThrow();
        cluster.kubectl("wait", "--for=condition=Established", "--timeout=60s",
                "crd/issuers.cert-manager.io", "crd/certificates.cert-manager.io").orThrow();
    }

    @AfterAll
    static void removeCrds() {
        if (crds != null) {
            cluster.kubectl("delete", "-f", crds.toString(), "--wait=false");
        }
    }

    @Test
    void theInstallWithTheCertManagerComponentIsAccepted() throws IOException {
        Path overlay = Files.createDirectories(cluster.work().resolve("cert-manager-install"));
        String base = overlay.relativize(cluster.root().resolve("manifests")).toString();
        Files.writeString(overlay.resolve("kustomization.yaml"), """
                # written by cluster-tests: docs/install.md's "With cert-manager"
                apiVersion: kustomize.config.k8s.io/v1beta1
                kind: Kustomization
                resources:
                - %s
                components:
                - %s/cert-manager
                """.formatted(base, base));

        Command.Result applied = cluster.kubectl("apply", "-k", overlay.toString(), "--dry-run=server", "--validate=strict");

        assertThat(applied.ok()).as(applied.describe()).isTrue();
        assertThat(applied.out()).contains("issuer.cert-manager.io/sharder-selfsigned", "certificate.cert-manager.io/sharder-webhook-ca",
                "issuer.cert-manager.io/sharder-ca", "certificate.cert-manager.io/sharder-webhook", "deployment.apps/sharder");
    }

    /** The dry run above proves something: a field cert-manager v1 does not have is refused. */
    @Test
    void aFieldCertManagerDoesNotKnowIsRefused() throws IOException {
        String certificate = Files.readString(cluster.root().resolve("manifests/cert-manager/certificate.yaml"));
        Path typo = cluster.work().resolve("certificate-typo.yaml");
        Files.writeString(typo, certificate.replace("  dnsNames:", "  dnsName:"));

        Command.Result applied = cluster.kubectl("apply", "-f", typo.toString(), "--dry-run=server", "--validate=strict");

        assertThat(applied.ok()).as(applied.describe()).isFalse();
        assertThat(applied.err()).contains("dnsName");
    }
}
