package dev.ringmaster.bench.sharder;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ringmaster.bench.BenchArgs;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.ShardRing;
import dev.ringmaster.sharder.model.ClusterRing;
import dev.ringmaster.sharder.model.RingResourceSpec;
import io.fabric8.kubernetes.api.model.APIResourceListBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The benchmark's "cluster": fabric8's KubernetesMockServer in CRUD mode on 127.0.0.1 (plain HTTP)
 * with a ring of 4 ready shards and N ConfigMaps placed as a ring of 3 shards would have placed them,
 * i.e. the state right after scaling out from 3 to 4 shards. ConfigMaps are served by
 * {@link ConfigMapStore} (paging, metadata-only lists, O(log N) lookups); everything else by the CRUD
 * dispatcher.
 *
 * <p>While it runs it also plays the shards: it renews their Leases every 3 s and acknowledges every
 * drain (removes the shard and drain labels, as a shard does when it lets go of an object) after
 * {@code --ack-delay-ms}.
 *
 * <p>Prints one JSON line {@code {"event":"ready","url":...}} when set up. Then reads commands on
 * stdin, one per line: {@code verify} prints the placement of every object and the request counts as
 * one JSON line. Exits on stdin EOF, or after {@code --minutes} (default 15) whatever happens.
 *
 * <pre>java -Xmx2g -cp benchmarks.jar dev.ringmaster.bench.sharder.MockCluster --objects 10000</pre>
 */
public final class MockCluster {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int LEASE_SECONDS = 15;
    /** The mock web server logs every request at INFO (java.util.logging); held so the level sticks. */
    private static final java.util.logging.Logger MOCK_LOG = java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

    private MockCluster() {
    }

    /** Routes ConfigMap requests to the store, everything else to the CRUD (and expectations) dispatcher. */
    private static final class Dispatcher extends KubernetesMixedDispatcher {

        private final ConfigMapStore store;

        Dispatcher(Map<ServerRequest, Queue<ServerResponse>> responses, ConfigMapStore store) {
            super(responses);
            this.store = store;
        }

        @Override
        public MockResponse dispatch(RecordedRequest request) {
            MockResponse configMaps = store.handle(request);
            return configMaps != null ? configMaps : super.dispatch(request);
        }
    }

    public static void main(String[] args) throws Exception {
        BenchArgs options = BenchArgs.parse(MockCluster.class, args, "objects", "minutes", "ack-delay-ms", "initial", "port");
        MOCK_LOG.setLevel(java.util.logging.Level.WARNING);
        int objects = options.integer("objects", 10_000);
        int minutes = options.integer("minutes", 15);
        long ackDelayMillis = options.integer("ack-delay-ms", 0);
        String initial = options.oneOf("initial", "3-shards", "unlabelled");

        ScheduledExecutorService background = Executors.newScheduledThreadPool(2, runnable -> {
            Thread thread = new Thread(runnable, "bench-cluster");
            thread.setDaemon(true);
            return thread;
        });
        // Whatever happens to the driver, this process goes away.
        background.schedule(() -> {
            System.err.println("mock cluster: " + minutes + " minutes are up, exiting");
            Runtime.getRuntime().halt(3);
        }, minutes, TimeUnit.MINUTES);

        long setupStart = System.nanoTime();
        ConfigMapStore store = new ConfigMapStore(BenchRing.SHARD_LABEL, BenchRing.DRAIN_LABEL);
        Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
        KubernetesMockServer server = new KubernetesMockServer(new Context(Serialization.jsonMapper()),
                new MockWebServer(), responses, new Dispatcher(responses, store), false);
        server.init(InetAddress.getByName("127.0.0.1"), options.integer("port", 0));
        String url = "http://127.0.0.1:" + server.getPort();
        // The mock web server keeps every request it served for takeRequest(); forget them.
        background.scheduleWithFixedDelay(() -> {
            try {
                while (server.takeRequest(1, TimeUnit.MILLISECONDS) != null) {
                    // drop
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, 1, 1, TimeUnit.SECONDS);

        KubernetesClient client = server.createClient();
        server.expect().get().withPath("/api/v1").andReturn(200, new APIResourceListBuilder().withGroupVersion("v1")
                .addNewResource().withName("configmaps").withKind("ConfigMap").withNamespaced(true)
                .withVerbs("get", "list", "patch").endResource()
                .addNewResource().withName("namespaces").withKind("Namespace").withNamespaced(false).endResource()
                .build()).always();
        try (InputStream crd = ClusterRing.class.getClassLoader()
                .getResourceAsStream("META-INF/fabric8/clusterrings.sharding.timebertt.dev-v1.yml")) {
            if (crd == null) {
                throw new IllegalStateException("the ClusterRing CRD is not on the class path");
            }
            client.apiextensions().v1().customResourceDefinitions().load(crd).create();
        }
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(BenchRing.NAMESPACE)
                .addToLabels("kubernetes.io/metadata.name", BenchRing.NAMESPACE).endMetadata().build()).create();
        for (int shard = 0; shard < BenchRing.SHARDS_AFTER; shard++) {
            String name = BenchRing.shardName(shard);
            client.leases().inNamespace(BenchRing.LEASE_NAMESPACE).resource(new LeaseBuilder().withNewMetadata()
                    .withNamespace(BenchRing.LEASE_NAMESPACE).withName(name)
                    .addToLabels(RingContract.RING_LABEL, BenchRing.RING).endMetadata()
                    .withNewSpec().withHolderIdentity(name).withAcquireTime(now()).withRenewTime(now())
                    .withLeaseDurationSeconds(LEASE_SECONDS).endSpec().build()).create();
        }
        background.scheduleWithFixedDelay(() -> renewLeases(client), 3, 3, TimeUnit.SECONDS);
        ClusterRing ring = new ClusterRing();
        ring.getMetadata().setName(BenchRing.RING);
        ring.getSpec().getResources().add(new RingResourceSpec("", "configmaps", List.of()));
        client.resources(ClusterRing.class).resource(ring).create();

        ShardRing before = BenchRing.ring(BenchRing.SHARDS_BEFORE);
        ShardRing after = BenchRing.ring(BenchRing.SHARDS_AFTER);
        int toMove = 0;
        for (int i = 0; i < objects; i++) {
            String name = BenchRing.objectName(i);
            String key = BenchRing.key(BenchRing.NAMESPACE, name);
            if (initial.equals("3-shards")) {
                String shard = before.shardFor(key).orElseThrow();
                store.create(BenchRing.NAMESPACE, name, Map.of(BenchRing.SHARD_LABEL, shard, "app", "bench"));
                if (!shard.equals(after.shardFor(key).orElseThrow())) {
                    toMove++;
                }
            } else {
                store.create(BenchRing.NAMESPACE, name, Map.of("app", "bench"));
                toMove++;
            }
        }
        long nanosPerAck = TimeUnit.MILLISECONDS.toNanos(ackDelayMillis);
        background.scheduleWithFixedDelay(() -> {
            try {
                store.acknowledgeDrains(nanosPerAck);
            } catch (RuntimeException e) {
                System.err.println("mock cluster: acknowledging drains failed: " + e);
            }
        }, 20, 20, TimeUnit.MILLISECONDS);

        Map<String, Object> ready = new LinkedHashMap<>();
        ready.put("event", "ready");
        ready.put("url", url);
        ready.put("objects", objects);
        ready.put("initial", initial);
        ready.put("toMove", toMove);
        ready.put("setupSeconds", seconds(System.nanoTime() - setupStart));
        long cpuAtReady = SharderRun.processCpuNanos();
        print(ready);

        BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String command = commands.readLine(); command != null; command = commands.readLine()) {
            switch (command.trim()) {
                case "verify" -> {
                    Map<String, Object> verified = verify(store, after);
                    verified.put("clusterCpuSecondsSinceReady", seconds(SharderRun.processCpuNanos() - cpuAtReady));
                    print(verified);
                }
                case "" -> { }
                default -> System.err.println("mock cluster: unknown command " + command);
            }
        }
        client.close();
        server.destroy();
        System.exit(0);
    }

    /** Where every object is: on its desired shard of the 4-shard ring, draining, unassigned or elsewhere. */
    private static Map<String, Object> verify(ConfigMapStore store, ShardRing ring) {
        AtomicLong onDesired = new AtomicLong();
        AtomicLong draining = new AtomicLong();
        AtomicLong unassigned = new AtomicLong();
        AtomicLong misplaced = new AtomicLong();
        store.forEach((name, labels) -> {
            String shard = labels.get(BenchRing.SHARD_LABEL);
            if (labels.containsKey(BenchRing.DRAIN_LABEL)) {
                draining.incrementAndGet();
            } else if (shard == null) {
                unassigned.incrementAndGet();
            } else if (shard.equals(ring.shardFor(BenchRing.key(BenchRing.NAMESPACE, name)).orElse(null))) {
                onDesired.incrementAndGet();
            } else {
                misplaced.incrementAndGet();
            }
        });
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("event", "verify");
        result.put("objects", store.size());
        result.put("onDesiredShard", onDesired.get());
        result.put("draining", draining.get());
        result.put("unassigned", unassigned.get());
        result.put("misplaced", misplaced.get());
        result.put("settled", onDesired.get() == store.size());
        Map<String, Object> requests = new LinkedHashMap<>();
        requests.put("lists", store.lists.get());
        requests.put("listedItems", store.listedItems.get());
        requests.put("gets", store.gets.get());
        requests.put("patches", store.patches.get());
        requests.put("conflicts", store.conflicts.get());
        requests.put("notFound", store.notFound.get());
        requests.put("refused", store.refused.get());
        result.put("configMapRequests", requests);
        result.put("drainsAcknowledged", store.acknowledged.get());
        return result;
    }

    private static void renewLeases(KubernetesClient client) {
        for (int shard = 0; shard < BenchRing.SHARDS_AFTER; shard++) {
            String name = BenchRing.shardName(shard);
            try {
                client.leases().inNamespace(BenchRing.LEASE_NAMESPACE).withName(name).edit(lease -> new LeaseBuilder(lease)
                        .editSpec().withHolderIdentity(name).withRenewTime(now()).endSpec().build());
            } catch (RuntimeException e) {
                // a concurrent write by the sharder (state label); the next renewal is 3 s away, the lease lasts 15 s
                System.err.println("mock cluster: renewing lease " + name + " failed: " + e.getMessage());
            }
        }
    }

    private static ZonedDateTime now() {
        return ZonedDateTime.ofInstant(Instant.now(), ZoneOffset.UTC);
    }

    static double seconds(long nanos) {
        return Math.round(nanos / 1e6) / 1e3;
    }

    private static synchronized void print(Map<String, Object> line) throws Exception {
        System.out.println(JSON.writeValueAsString(line));
        System.out.flush();
    }
}
