package dev.ringmaster.shard.josdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.ranges.HashRange;
import dev.ringmaster.ring.ranges.RangeSet;
import dev.ringmaster.shard.client.Sharding;
import dev.ringmaster.testing.apiserver.Fnv1a;
import dev.ringmaster.testing.apiserver.RealApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A JOSDK operator as a range-mode shard on a real kube-apiserver v1.36 with the KEP-5866 gate
 * ({@link RealApiServer#shardedListAndWatch()}): it reconciles exactly the ConfigMaps whose uid's
 * FNV-1a 64 (computed here, with this test's own loop) lies in its assigned ranges, and JOSDK's cache
 * of the primaries holds exactly those (the server filtered the list and watch); after a growth it
 * reconciles and caches the new ranges' ConfigMaps too, and not again those it kept.
 */
class ShardedOperatorRangeIT {

    private static final int OBJECTS = 60;
    private static final Duration SOON = Duration.ofSeconds(60);

    private final Set<String> reconciled = ConcurrentHashMap.newKeySet();
    /** How often each ConfigMap was reconciled. */
    private final Map<String, Integer> reconciles = new ConcurrentHashMap<>();
    private final AtomicReference<IndexerResourceCache<ConfigMap>> cache = new AtomicReference<>();

    @ControllerConfiguration(name = "range-it")
    class Recorder implements Reconciler<ConfigMap> {
        @Override
        public UpdateControl<ConfigMap> reconcile(ConfigMap configMap, Context<ConfigMap> context) {
            reconciled.add(configMap.getMetadata().getName());
            reconciles.merge(configMap.getMetadata().getName(), 1, Integer::sum);
            return UpdateControl.noUpdate();
        }

        @Override
        public List<EventSource<?, ConfigMap>> prepareEventSources(EventSourceContext<ConfigMap> context) {
            cache.set(context.getPrimaryCache());
            return List.of();
        }
    }

    @Test
    void reconcilesExactlyTheConfigMapsOfItsRanges() {
        RealApiServer server = RealApiServer.shardedListAndWatch();
        assertThat(server.gitVersion()).startsWith("v1.36.");
        KubernetesClient admin = server.admin();
        String namespace = "josdk-range-it";
        admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
                .serverSideApply();
        Map<String, String> uids = new HashMap<>();
        for (int i = 0; i < OBJECTS; i++) {
            ConfigMap created = create(admin, namespace, "cm-" + i);
            uids.put(created.getMetadata().getName(), created.getMetadata().getUid());
        }
        RangeSet lowerHalf = RangeSet.of(List.of(HashRange.of("0x0000000000000000", "0x8000000000000000")));

        Sharding sharding = Sharding.forRing("range-ring").shard("shard-0").namespace(namespace).client(admin)
                .instance("josdk-range-it").rangeMode().leaseDuration(Duration.ofSeconds(6))
                .renewDeadline(Duration.ofSeconds(4)).retryPeriod(Duration.ofMillis(500)).build();
        ShardedOperator operator = ShardedOperator.builder(sharding)
                .configuration(o -> o.withKubernetesClient(admin).withCloseClientOnStop(false)).build();
        try {
            operator.register(new Recorder(), controller -> controller.settingNamespace(namespace));
            operator.start();
            await().atMost(SOON).until(() -> sharding.lease().isHeld()
                    && admin.leases().inNamespace(namespace).withName("shard-0").get() != null);

            assign(admin, namespace, lowerHalf);
            Set<String> expected = expected(uids, lowerHalf);
            assertThat(expected).isNotEmpty().hasSizeLessThan(OBJECTS);
            await().atMost(SOON).untilAsserted(() -> assertThat(new TreeSet<>(reconciled)).isEqualTo(new TreeSet<>(expected)));
            await().atMost(SOON).untilAsserted(() -> assertThat(cached()).isEqualTo(new TreeSet<>(expected)));
            await().during(Duration.ofSeconds(3)).atMost(SOON).until(() -> expected.containsAll(reconciled));

            // created while it watches: reconciled only if in its ranges
            for (int i = OBJECTS; i < OBJECTS + 10; i++) {
                ConfigMap created = create(admin, namespace, "cm-" + i);
                uids.put(created.getMetadata().getName(), created.getMetadata().getUid());
            }
            Set<String> more = expected(uids, lowerHalf);
            await().atMost(SOON).untilAsserted(() -> assertThat(new TreeSet<>(reconciled)).isEqualTo(new TreeSet<>(more)));
            await().atMost(SOON).untilAsserted(() -> assertThat(cached()).isEqualTo(new TreeSet<>(more)));

            // growth: the whole space
            assign(admin, namespace, RangeSet.ALL);
            await().atMost(SOON).untilAsserted(() -> assertThat(new TreeSet<>(reconciled)).isEqualTo(new TreeSet<>(uids.keySet())));
            await().atMost(SOON).untilAsserted(() -> assertThat(cached()).isEqualTo(new TreeSet<>(uids.keySet())));
            // the informers listed again: the objects it kept were not reconciled again, nothing changed them
            await().during(Duration.ofSeconds(3)).atMost(SOON)
                    .until(() -> reconciles.values().stream().allMatch(count -> count == 1));
            assertThat(reconciles.keySet()).isEqualTo(uids.keySet());
        } finally {
            operator.stop();
        }
    }

    private Set<String> cached() {
        IndexerResourceCache<ConfigMap> primaries = cache.get();
        return primaries == null ? Set.of() : primaries.list().map(cm -> cm.getMetadata().getName())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static ConfigMap create(KubernetesClient admin, String namespace, String name) {
        return admin.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder().withNewMetadata()
                .withName(name).endMetadata().addToData("key", name).build()).create();
    }

    /** Writes the assignment as the sharder would; again on a conflict with the shard's own writes. */
    private static void assign(KubernetesClient admin, String namespace, RangeSet ranges) {
        await().atMost(SOON).ignoreExceptions().until(() -> {
            admin.leases().inNamespace(namespace).withName("shard-0").edit(lease -> new LeaseBuilder(lease).editMetadata()
                    .addToAnnotations(RingContract.ASSIGNED_RANGES_ANNOTATION, ranges.toString())
                    .addToAnnotations(RingContract.RANGE_KEY_ANNOTATION, "uid").endMetadata().build());
            return true;
        });
    }

    /** The names whose uid's FNV-1a 64 lies in {@code ranges}, computed here. */
    private static Set<String> expected(Map<String, String> uids, RangeSet ranges) {
        return Fnv1a.namesHashedInto(uids, ranges.ranges().stream().map(r -> new long[] {r.first(), r.last()}).toList());
    }

}
