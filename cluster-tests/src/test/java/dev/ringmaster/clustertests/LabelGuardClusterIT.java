package dev.ringmaster.clustertests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.clustertests.support.Command;
import dev.ringmaster.clustertests.support.Sharder;
import dev.ringmaster.clustertests.support.SharderInstall;
import dev.ringmaster.clustertests.support.StatefulSetScenarios;
import dev.ringmaster.clustertests.support.Waiting;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * (f) The label guard in the cluster, enabled as docs/label-guard.md says: a kustomization of one's
 * own with the base and the Component {@code manifests/label-guard}. Its ValidatingWebhookConfiguration
 * (CEL {@code matchConditions}, Service mode) is accepted and called: neither an ordinary user nor a
 * cluster administrator may move an object to another shard or drain it (taking the shard label away
 * gives it back, by the sharder's webhook; other labels are theirs to change), while the sharder's moves
 * and the shards' drain acknowledgements go through unhindered. The guard stays installed for the
 * scenarios that follow.
 */
class LabelGuardClusterIT extends StatefulSetScenarios {

    @BeforeAll
    static void install() {
        cluster.installWith(SharderInstall.Extra.LABEL_GUARD);
    }

    @Test
    void onlyTheSharderAndTheShardsMoveObjects() {
        Waiting.until(Duration.ofSeconds(60), () -> "the label guard's webhook configuration with a caBundle",
                () -> guard().map(LabelGuardClusterIT::hasCaBundle).orElse(false));
        Set<String> ready = shards.settledWithObjects("guarded", Duration.ofSeconds(120));
        assertThat(ready).as("shards to move between").hasSizeGreaterThanOrEqualTo(2);
        ConfigMap object = shards.configMaps().stream().filter(configMap -> !configMap.getMetadata().getName().startsWith("kube-"))
                .findFirst().orElseThrow();
        String name = object.getMetadata().getName();
        String owner = object.getMetadata().getLabels().get(shards.shardLabel());
        String other = new TreeSet<>(ready).stream().filter(shard -> !shard.equals(owner)).findFirst().orElseThrow();

        // an ordinary user, allowed by RBAC to label ConfigMaps there
        cluster.admin().rbac().roles().inNamespace(shards.objectsNamespace()).resource(new RoleBuilder().withNewMetadata()
                .withName("alice-labels-configmaps").endMetadata().addNewRule().withApiGroups("").withResources("configmaps")
                .withVerbs("get", "list", "patch", "update").endRule().build()).serverSideApply();
        cluster.admin().rbac().roleBindings().inNamespace(shards.objectsNamespace()).resource(new RoleBindingBuilder()
                .withNewMetadata().withName("alice-labels-configmaps").endMetadata().withNewRoleRef().withApiGroup("rbac.authorization.k8s.io")
                .withKind("Role").withName("alice-labels-configmaps").endRoleRef().addNewSubject().withApiGroup("rbac.authorization.k8s.io")
                .withKind("User").withName("alice").endSubject().build()).serverSideApply();

        Command.Result move = cluster.kubectl("--as=alice", "-n", shards.objectsNamespace(), "label", "configmap", name,
                shards.shardLabel() + "=" + other, "--overwrite");
        assertThat(move.ok()).as("alice moving %s from %s to %s: %s", name, owner, other, move.describe()).isFalse();
        assertThat(move.err()).contains("label-guard").contains("user \"alice\" may not").contains(shards.shardLabel());

        Command.Result drain = cluster.kubectl("--as=alice", "-n", shards.objectsNamespace(), "label", "configmap", name,
                shards.drainLabel() + "=true");
        assertThat(drain.ok()).as("alice draining %s: %s", name, drain.describe()).isFalse();
        assertThat(drain.err()).contains("label-guard");

        // the cluster's administrator (system:masters) is no exception: stray kubectl label is what the guard stops
        Command.Result admin = cluster.kubectl("-n", shards.objectsNamespace(), "label", "configmap", name,
                shards.shardLabel() + "=" + other, "--overwrite");
        assertThat(admin.ok()).as("the administrator moving %s: %s", name, admin.describe()).isFalse();
        assertThat(admin.err()).contains("label-guard");
        assertThat(cluster.admin().configMaps().inNamespace(shards.objectsNamespace()).withName(name).get().getMetadata()
                .getLabels()).containsEntry(shards.shardLabel(), owner).doesNotContainKey(shards.drainLabel());

        // taking the shard label away leaves the object unassigned for the sharder's mutating webhook, which
        // runs before validation and assigns it again to the same shard: the guard sees no change at all
        cluster.kubectl("--as=alice", "-n", shards.objectsNamespace(), "label", "configmap", name,
                shards.shardLabel() + "-").orThrow();
        // and every other label is alice's to change
        cluster.kubectl("--as=alice", "-n", shards.objectsNamespace(), "label", "configmap", name, "team=a").orThrow();
        assertThat(cluster.admin().configMaps().inNamespace(shards.objectsNamespace()).withName(name).get().getMetadata()
                .getLabels()).containsEntry(shards.shardLabel(), owner).containsEntry("team", "a");

        // the sharder and the shards are not hindered: a deleted shard pod's objects move away (the
        // sharder's writes) and back (drains acknowledged by the shard, assignments by the sharder)
        String victim = owner;
        shards.deletePod(victim);
        Waiting.until(Duration.ofSeconds(120), () -> victim + " back and Ready\n" + shards.diagnostics(),
                () -> shards.readyPods().equals(ready));
        shards.awaitRolledOut();
        shards.awaitSettledOn(ready, Duration.ofSeconds(120));
        assertThat(shards.perShard()).containsKey(victim);
        List<String> denials = denials();
        assertThat(denials).as("the guard's denials, in the sharder's logs").isNotEmpty()
                .allMatch(line -> line.contains(" by alice") || line.contains(" by admin"));
        shards.assertNoOverlappingReconciles();
    }

    private static Optional<ValidatingWebhookConfiguration> guard() {
        return Optional.ofNullable(cluster.admin().admissionRegistration().v1().validatingWebhookConfigurations()
                .withName("ringmaster-label-guard").get());
    }

    private static boolean hasCaBundle(ValidatingWebhookConfiguration configuration) {
        return configuration.getWebhooks().stream().allMatch(hook -> hook.getClientConfig().getCaBundle() != null
                && !hook.getClientConfig().getCaBundle().isBlank());
    }

    /** Every "Denied …" line of the label guard in the current sharder pods' logs. */
    private static List<String> denials() {
        return new Sharder(cluster).podNames().stream()
                .flatMap(pod -> cluster.kubectl("-n", Sharder.NAMESPACE, "logs", pod).out().lines())
                .filter(line -> line.contains("Denied UPDATE")).toList();
    }
}
