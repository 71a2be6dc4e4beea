package dev.ringmaster.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import dev.ringmaster.itests.support.Cli;
import dev.ringmaster.itests.support.RealCluster;
import dev.ringmaster.itests.support.RingObjects;
import dev.ringmaster.itests.support.ShardFleet;
import dev.ringmaster.itests.support.SharderHome;
import dev.ringmaster.itests.support.Waiting;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.testing.apiserver.AuditLog;
import dev.ringmaster.testing.rings.RingState;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.api.model.rbac.SubjectBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/**
 * The namespaced-leases component on the real API server: {@code bin/ringmaster run --shard-lease-namespaces}
 * as a ServiceAccount holding exactly the RBAC the base and the component grant together (every binding of
 * the base's sharder but the cluster-wide one of the shard Lease role, which the component deletes, and the
 * component's RoleBinding of that role in the shards' namespace), with {@code bin/checksum-controller}
 * shards there. Shards become ready and get objects, a scale-out drains through, a frozen shard's Lease is
 * acquired (uncertain, then dead) with the namespaced permission; a live shard Lease of the same ring in a
 * namespace not listed is no shard. The sharder never asks for Leases outside its namespaces: its log has no
 * failed watch, the API server's audit log no refused write, and RBAC would refuse it a cluster-wide list.
 */
public class NamespacedLeasesRealIT {

    private static final String RING = "namespaced-leases";
    /** The shards' namespace, listed after --shard-lease-namespaces and bound by the component's template. */
    private static final String SHARDS = "namespaced-leases";
    /** A namespace not listed, with a live Lease of the ring in it. */
    private static final String ELSEWHERE = "namespaced-leases-elsewhere";
    /** The ServiceAccount the sharder runs as here: the base's sharder keeps its own bindings for the other tests. */
    private static final String ACCOUNT = "sharder-namespaced";
    private static final String SUFFIX = ":namespaced-it";
    private static final Path COMPONENT = RealCluster.manifests().resolve("namespaced-leases");
    private static final int OBJECTS = 40;
    private static final Duration SOON = Duration.ofSeconds(90);
    /** A shard's lease is 15 s: expired after 15 s, uncertain after 30 s, then acquired and dead. */
    private static final Duration DEATH = Duration.ofSeconds(120);

    private RealCluster cluster;
    private KubernetesClient admin;
    private Cli.Started sharder;
    private ShardFleet shards;
    private RingObjects objects;
    private String credential;

    @Before
    public void start() {
        cluster = RealCluster.get();
        admin = cluster.admin();
        objects = new RingObjects(admin, RING, SHARDS);
        cluster.configMapRing(RING, SHARDS, true);
        cluster.namespace(ELSEWHERE);
        cluster.liveShardLease(ELSEWHERE, "intruder", RING);
        installComponentRbac();

        SharderHome replica = SharderHome.prepare("namespaced-leases");
        Path kubeconfig = cluster.server().serviceAccountKubeconfig(RealCluster.SYSTEM_NAMESPACE, ACCOUNT,
                replica.home().resolve("sharder.kubeconfig"));
        credential = cluster.server().credentialId(kubeconfig);
        List<String> args = new ArrayList<>(replica.runArgsCalledBack(kubeconfig));
        args.addAll(List.of("--shard-lease-namespaces", SHARDS));
        sharder = Cli.start(replica.home(), args);
        Waiting.until(Duration.ofSeconds(60), () -> "the sharder ready\n" + sharder.err(),
                () -> replica.status("/readyz") == 200);
        shards = new ShardFleet(cluster, replica.home(), RING, SHARDS);
    }

    @After
    public void stop() throws InterruptedException {
        ShardFleet.close(shards);
        Cli.kill(sharder);
    }

    @Test
    public void shardsInTheListedNamespaceWorkWithNamespacedLeasePermissionsAndLeasesElsewhereAreNoShards()
            throws Exception {
        // what the RBAC is: Leases in the listed namespace, none cluster-wide or in the control plane's
        assertFalse("a cluster-wide list of Leases", allowed("list", null, null));
        assertTrue(allowed("list", SHARDS, null));
        assertTrue(allowed("watch", SHARDS, null));
        assertTrue(allowed("update", SHARDS, null));
        assertFalse(allowed("update", ELSEWHERE, null));
        assertFalse(allowed("update", "kube-node-lease", null));
        assertFalse("another Lease of the sharder's own namespace", allowed("patch", RealCluster.SYSTEM_NAMESPACE, "other"));
        assertTrue("the leader election Lease", allowed("patch", RealCluster.SYSTEM_NAMESPACE, "sharder"));

        shards.start("shard-0");
        shards.start("shard-1");
        objects.awaitAvailable(Set.of("shard-0", "shard-1"), SOON, () -> shards.logs() + sharder.err());
        objects.createConfigMaps(OBJECTS);
        settledOn(Set.of("shard-0", "shard-1"));
        objects.awaitChecksumSecrets(OBJECTS, SOON, shards::logs);

        // scale-out: the new shard's objects are drained from the others and assigned to it
        shards.start("shard-2");
        settledOn(Set.of("shard-0", "shard-1", "shard-2"));

        // a frozen shard: expired, uncertain, its Lease acquired through the RoleBinding, dead
        shards.frozenUntilDead("shard-1", objects, DEATH, sharder::err, () -> settledOn(Set.of("shard-0", "shard-2")));
        assertEquals("reconciles of one object by two shards at overlapping times; first lines:\n"
                + shards.reconciles().stream().limit(5).toList(), 0, shards.overlaps());

        // the Lease in the namespace not listed: never judged, never given an object
        assertFalse("the intruder got objects: " + objects.perShard(), objects.perShard().containsKey("intruder"));
        assertFalse("the sharder judged a Lease it does not watch",
                RingState.labels(admin.leases().inNamespace(ELSEWHERE).withName("intruder").get())
                        .containsKey(RingContract.STATE_LABEL));

        String log = sharder.err();
        assertTrue(log, log.contains("Watching shard leases only in the namespaces [" + SHARDS + "]"));
        assertFalse("a refused watch of Leases:\n" + log, log.contains("shard leases failed")
                || log.contains("shard leases in " + SHARDS + " failed") || log.contains("Forbidden"));
        List<AuditLog.Event> writes = cluster.server().audit().events().stream()
                .filter(event -> event.madeWith(credential)).toList();
        assertTrue("the sharder wrote shard Leases", writes.stream().anyMatch(event -> event.resource().equals("leases")
                && event.namespace().equals(SHARDS) && event.code() < 300));
        assertEquals("writes the API server refused", List.of(),
                writes.stream().filter(event -> event.code() == 403).toList());
        assertEquals("Lease writes outside the listed namespace and the election Lease", List.of(),
                writes.stream().filter(event -> event.resource().equals("leases"))
                        .filter(event -> !event.namespace().equals(SHARDS))
                        .filter(event -> !(event.namespace().equals(RealCluster.SYSTEM_NAMESPACE)
                                && event.name().equals("sharder")))
                        .toList());
    }

    private void settledOn(Set<String> available) {
        objects.awaitSettledOn(available, OBJECTS, SOON, sharder::err);
    }

    /**
     * The RBAC of {@code manifests/} with the namespaced-leases component, for {@value #ACCOUNT}: the base's
     * roles as they are, a copy of each of its bindings of the sharder but the one the component deletes, and the
     * component's RoleBinding in {@value #SHARDS}, each naming this test's ServiceAccount.
     */
    private void installComponentRbac() {
        String deleted = load(COMPONENT.resolve("rbac-binding-patch.yaml")).get(0).getMetadata().getName();
        List<HasMetadata> base = new ArrayList<>();
        for (String file : baseFiles()) {
            base.addAll(load(RealCluster.manifests().resolve(file)));
        }
        int bindings = 0;
        for (HasMetadata object : base) {
            if ((object instanceof ClusterRole role && role.getAggregationRule() == null) || object instanceof Role) {
                // the aggregated role is filled in by RealCluster; applying its empty rules would clear them
                admin.resource(object).forceConflicts().serverSideApply();
            } else if (object instanceof ClusterRoleBinding binding && isSharder(binding.getSubjects())
                    && !binding.getMetadata().getName().equals(deleted)) {
                admin.resource(new ClusterRoleBindingBuilder(binding).editMetadata()
                        .withName(binding.getMetadata().getName() + SUFFIX).endMetadata()
                        .withSubjects(account()).build()).forceConflicts().serverSideApply();
                bindings++;
            } else if (object instanceof RoleBinding binding && isSharder(binding.getSubjects())) {
                admin.resource(new RoleBindingBuilder(binding).editMetadata()
                        .withName(binding.getMetadata().getName() + SUFFIX).endMetadata()
                        .withSubjects(account()).build()).forceConflicts().serverSideApply();
                bindings++;
            }
        }
        assertTrue("the base's bindings of the sharder: " + bindings, bindings >= 6);
        assertTrue("the component deletes a binding of the base", base.stream().anyMatch(object ->
                object instanceof ClusterRoleBinding && object.getMetadata().getName().equals(deleted)));
        RoleBinding template = (RoleBinding) load(COMPONENT.resolve("rolebinding-shard-leases.yaml")).get(0);
        admin.resource(new RoleBindingBuilder(template).editMetadata().withNamespace(SHARDS)
                .withName(template.getMetadata().getName() + SUFFIX).endMetadata()
                .withSubjects(account()).build()).forceConflicts().serverSideApply();
    }

    /** The YAML files the base kustomization lists (not its CRD folder). */
    private static List<String> baseFiles() {
        Map<?, ?> kustomization = new io.fabric8.kubernetes.client.utils.KubernetesSerialization()
                .unmarshal(read(RealCluster.manifests().resolve("kustomization.yaml")), Map.class);
        return ((List<?>) kustomization.get("resources")).stream().map(String::valueOf)
                .filter(file -> file.endsWith(".yaml")).toList();
    }

    private List<HasMetadata> load(Path file) {
        try (InputStream yaml = Files.newInputStream(file)) {
            return admin.load(yaml).items();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean isSharder(List<Subject> subjects) {
        return subjects.stream().anyMatch(subject -> "ServiceAccount".equals(subject.getKind())
                && RealCluster.SHARDER_ACCOUNT.equals(subject.getName())
                && RealCluster.SYSTEM_NAMESPACE.equals(subject.getNamespace()));
    }

    private static Subject account() {
        return new SubjectBuilder().withKind("ServiceAccount").withName(ACCOUNT)
                .withNamespace(RealCluster.SYSTEM_NAMESPACE).build();
    }

    /** Whether RBAC allows {@value #ACCOUNT} the verb on Leases (namespace null: cluster-wide). */
    private boolean allowed(String verb, String namespace, String name) {
        SubjectAccessReview review = admin.authorization().v1().subjectAccessReview().create(new SubjectAccessReviewBuilder()
                .withNewSpec().withUser("system:serviceaccount:" + RealCluster.SYSTEM_NAMESPACE + ":" + ACCOUNT)
                .withNewResourceAttributes().withGroup("coordination.k8s.io").withResource("leases").withVerb(verb)
                .withNamespace(namespace).withName(name).endResourceAttributes().endSpec().build());
        return Boolean.TRUE.equals(review.getStatus().getAllowed());
    }
}
