package dev.ringmaster.sharder.autoscale;

import static dev.ringmaster.sharder.testing.TestRings.configMapRing;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.ring.RingKind;
import dev.ringmaster.ring.ShardState;
import dev.ringmaster.sharder.lease.Membership;
import dev.ringmaster.sharder.lease.ShardInfo;
import dev.ringmaster.sharder.model.ClusterRing;
import dev.ringmaster.sharder.model.RingAutoscaling;
import dev.ringmaster.sharder.model.RingKey;
import dev.ringmaster.sharder.model.ScaleTargetRef;
import dev.ringmaster.sharder.ring.RingRegistry;
import io.fabric8.kubernetes.api.model.APIResourceBuilder;
import io.fabric8.kubernetes.api.model.APIResourceListBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The bad scale targets against a mock API server: a kind not served, one without a scale subresource and one that
 * does not exist are reported (the status controller's Ready reason) and nothing is written but the requests'
 * reads.
 */
@EnableKubernetesMockClient
class RingAutoscalerTest {

    KubernetesClient client;
    KubernetesMockServer server;

    private static final RingKey KEY = RingKey.clusterRing("shop");
    private static final ScaleTargetRef TARGET = new ScaleTargetRef("apps/v1", "StatefulSet", "shards", "shop");

    private final RingRegistry registry = new RingRegistry();
    private final List<Lease> cache = new ArrayList<>();
    private final AutoscalingReports reports = new AutoscalingReports();
    private final List<RingKey> told = new ArrayList<>();
    private final Clock clock = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);
    private RingAutoscaler autoscaler;
    private RingAutoscaling spec;

    @BeforeEach
    void ring() {
        ClusterRing ring = configMapRing(KEY.name());
        spec = new RingAutoscaling(TARGET, 1, 5, 50, null, null);
        ring.getSpec().setAutoscaling(spec);
        registry.update(inputs -> inputs.withRings(RingKind.CLUSTER_RING, List.of(ring)));
        registry.update(inputs -> inputs.withMembership(new Membership(Map.of(KEY,
                List.of(new ShardInfo("a", ShardState.READY, 1))))));
        reports.onChange(told::add);
        autoscaler = new RingAutoscaler(registry, () -> List.copyOf(cache), client, clock, reports,
                AutoscaleRecorder.NONE);
    }

    @Test
    void aKindTheServerDoesNotServeIsReportedAndNothingIsWritten() {
        discovery(false, false);
        autoscaler.reconcile(KEY);
        assertThat(problem()).isEqualTo("StatefulSet shop/shards (apps/v1): kind StatefulSet is not served in apps/v1"
                + " (spec.autoscaling.scaleTargetRef); the shard count is not changed until it can be scaled");
        assertThat(told).containsExactly(KEY);
        assertThat(writes()).isZero();
    }

    @Test
    void aKindWithoutAScaleSubresourceIsReported() {
        discovery(true, false);
        autoscaler.reconcile(KEY);
        assertThat(problem()).startsWith("StatefulSet shop/shards (apps/v1) has no scale subresource");
        assertThat(writes()).isZero();
    }

    @Test
    void aTargetThatDoesNotExistIsReportedOnceAndForgottenWithTheSpec() {
        discovery(true, true);
        server.expect().get().withPath("/apis/apps/v1/namespaces/shop/statefulsets/shards/scale")
                .andReturn(404, null).always();
        server.expect().get().withPath("/apis/apps/v1/namespaces/shop/statefulsets/shards").andReturn(404, null)
                .always();
        autoscaler.reconcile(KEY);
        autoscaler.reconcile(KEY);
        assertThat(problem()).startsWith("StatefulSet shop/shards (apps/v1) does not exist");
        assertThat(told).containsExactly(KEY); // said once
        assertThat(writes()).isZero();

        // the spec no longer autoscales: the report goes
        ClusterRing plain = configMapRing(KEY.name());
        registry.update(inputs -> inputs.withRings(RingKind.CLUSTER_RING, List.of(plain)));
        autoscaler.reconcile(KEY);
        assertThat(reports.get(KEY, spec)).isEmpty();
        assertThat(told).containsExactly(KEY, KEY);
    }

    private String problem() {
        return reports.get(KEY, spec).orElseThrow().problem();
    }

    /** The requests made that were not GETs. */
    private long writes() {
        long writes = 0;
        try {
            for (var request = server.takeRequest(100, java.util.concurrent.TimeUnit.MILLISECONDS); request != null;
                    request = server.takeRequest(100, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                if (!"GET".equals(request.getMethod())) {
                    writes++;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return writes;
    }

    private void discovery(boolean statefulSets, boolean scale) {
        APIResourceListBuilder list = new APIResourceListBuilder().withGroupVersion("apps/v1");
        if (statefulSets) {
            list.addToResources(new APIResourceBuilder().withName("statefulsets").withKind("StatefulSet")
                    .withNamespaced(true).withVerbs("get", "list").build());
        }
        if (scale) {
            list.addToResources(new APIResourceBuilder().withName("statefulsets/scale").withKind("Scale")
                    .withGroup("autoscaling").withVersion("v1").withNamespaced(true).withVerbs("get", "update").build());
        }
        server.expect().get().withPath("/apis/apps/v1").andReturn(200, list.build()).always();
    }
}
