package dev.ringmaster.clustertests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.clustertests.support.Command;
import dev.ringmaster.clustertests.support.PolicedScenarios;
import dev.ringmaster.clustertests.support.StatefulSetScenarios;
import dev.ringmaster.clustertests.support.Waiting;
import dev.ringmaster.testing.rings.PolicyDenials;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * (g) The admission policies of {@code manifests/admission-policies}, which every install of this tier has
 * from the start (docs/install.md, "Admission policies"): the controller manager type-checks the policy
 * without a warning, the sharder installed, elected, made its certificates' Secrets, its ring's webhook
 * configuration and the shards' Lease states, and settled the ring without one denial, while a write the
 * sharder never makes (a node's heartbeat Lease) is denied to its ServiceAccount with the policy's message.
 * The scenarios after this class run under the policy too, and each fails if the policy denied a request
 * meanwhile ({@link PolicedScenarios}).
 */
class AdmissionPoliciesClusterIT extends StatefulSetScenarios {

    private static final String POLICY = PolicedScenarios.POLICY;
    private static final String SHARDER_USER = "system:serviceaccount:sharding-system:sharder";

    @Test
    @PolicedScenarios.Denies(1)
    void theSharderWorksHeldToItsOwnWritesAndNothingElse() {
        ValidatingAdmissionPolicy policy = Waiting.value(Duration.ofSeconds(60), () -> POLICY + " type-checked", () -> {
            ValidatingAdmissionPolicy current = cluster.admin().admissionRegistration().v1().validatingAdmissionPolicies()
                    .withName(POLICY).get();
            boolean checked = current != null && current.getStatus() != null
                    && current.getMetadata().getGeneration().equals(current.getStatus().getObservedGeneration());
            return checked ? Optional.of(current) : Optional.empty();
        });
        assertThat(policy.getStatus().getTypeChecking().getExpressionWarnings()).as("type-checking warnings").isEmpty();

        shards.settledWithObjects("policed", Duration.ofSeconds(120));
        assertThat(shards.webhookConfiguration()).as("the ring's webhook configuration, written by the sharder").isPresent();
        assertThat(cluster.admin().secrets().inNamespace("sharding-system").withName("sharder-webhook-ca").get()).isNotNull();
        assertThat(denials()).as("requests of the sharder the policy denied").isZero();

        String node = cluster.admin().nodes().list().getItems().get(0).getMetadata().getName();
        Command.Result heartbeat = cluster.kubectl("--as=" + SHARDER_USER, "--as-group=system:serviceaccounts",
                "--as-group=system:serviceaccounts:sharding-system", "--as-group=system:authenticated",
                "-n", "kube-node-lease", "label", "lease", node, "ringmaster.dev/touched=true");
        assertThat(heartbeat.ok()).as("the sharder labelling %s's heartbeat Lease: %s", node, heartbeat.describe()).isFalse();
        assertThat(heartbeat.err()).contains("ValidatingAdmissionPolicy '" + POLICY + "'")
                .contains("UPDATE of Lease kube-node-lease/" + node + " refused");
        assertThat(denials()).as("the one denial just made").isEqualTo(1);
        assertThat(cluster.admin().leases().inNamespace("kube-node-lease").withName(node).get().getMetadata().getLabels())
                .doesNotContainKey("ringmaster.dev/touched");
    }

    private static long denials() {
        return PolicyDenials.count(cluster.admin(), POLICY);
    }
}
