package dev.ringmaster.sharder.rebalance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.sharder.testing.StandardErrorLines;
import dev.ringmaster.testing.apiserver.RealApiServer;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Writes of a pass that fail, on a real API server: a sharder that may list the ring's ConfigMaps but
 * not patch them (RBAC) has every write refused with 403. The pass goes on to the end, counts each
 * write in {@code failed}, and says so in one warning with the cause, its count and its first example,
 * not one line per write nor only the first write.
 */
class RebalancerFailuresIT {

    private static final String NAMESPACE = "rebalancer-failures-it";
    private static final String ACCOUNT = "list-only";
    private static final int OBJECTS = 30;

    private static final RealApiServer SERVER = RealApiServer.shared();
    private static final KubernetesClient ADMIN = SERVER.admin();

    @Test
    void everyFailedWriteIsCountedAndTheirCauseSaidOnce() {
        ADMIN.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
                .serverSideApply();
        IntStream.range(0, OBJECTS).forEach(i -> ADMIN.configMaps().inNamespace(NAMESPACE).resource(
                new ConfigMapBuilder().withNewMetadata().withName("cm-" + i).endMetadata().build()).create());
        Path kubeconfig = SERVER.serviceAccountKubeconfig(NAMESPACE, ACCOUNT,
                SERVER.workFolder(NAMESPACE).resolve(ACCOUNT + ".kubeconfig"));
        ADMIN.rbac().clusterRoles().resource(new ClusterRoleBuilder().withNewMetadata().withName(NAMESPACE).endMetadata()
                .withRules(new PolicyRuleBuilder().withApiGroups("").withResources("configmaps").withVerbs("list").build())
                .build()).serverSideApply();
        ADMIN.rbac().clusterRoleBindings().resource(new ClusterRoleBindingBuilder().withNewMetadata().withName(NAMESPACE)
                .endMetadata().withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", NAMESPACE).addNewSubject()
                .withKind("ServiceAccount").withNamespace(NAMESPACE).withName(ACCOUNT).endSubject().build())
                .serverSideApply();

        List<String> summaries;
        List<String> warnings;
        try (StandardErrorLines log = new StandardErrorLines(); KubernetesClient listOnly = SERVER.clientFor(kubeconfig);
                Rebalancer rebalancer = RebalancerFenceIT.rebalancer(listOnly, NAMESPACE)) {
            rebalancer.reconcile(RebalancerFenceIT.KEY);
            summaries = log.containing("rebalanced ClusterRing/fence");
            warnings = log.containing("writes failed");
        }

        assertThat(summaries).singleElement().satisfies(line -> assertThat(line).contains("PassSummary[examined="
                + OBJECTS + ", assigned=0, drained=0, reassigned=0, unlabelled=0, deferred=0, conflicts=0, failed=" + OBJECTS + ","));
        assertThat(warnings).singleElement().satisfies(line -> assertThat(line).contains("WARN")
                .contains("ClusterRing/fence: " + OBJECTS + " writes failed, tried again next pass: HTTP 403 Forbidden: "
                        + OBJECTS + " (first: ConfigMap " + NAMESPACE + "/cm-")
                .contains("cannot patch resource \"configmaps\""));
    }
}
