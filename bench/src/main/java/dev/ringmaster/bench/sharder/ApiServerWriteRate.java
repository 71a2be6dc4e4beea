package dev.ringmaster.bench.sharder;

import dev.ringmaster.bench.BenchArgs;
import dev.ringmaster.sharder.kube.LabelWriter;
import dev.ringmaster.sharder.kube.ResolvedResource;
import dev.ringmaster.testing.apiserver.RealApiServer;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;

/**
 * How many writes per second the API server and etcd take on this machine on their own: a real
 * kube-apiserver + etcd (kube-api-test, as {@link RealScaleBench} runs them) and nothing else but this
 * client, which creates N ConfigMaps and N Secrets (as the checksum shards' Secrets: one data entry,
 * a controller reference), then changes one label on each with the sharder's own {@link LabelWriter}
 * (a JSON merge patch pinned to the resourceVersion, over the JDK HTTP/2 client), {@code --in-flight}
 * at once, as a rebalance pass writes. Prints writes/s and the CPU the API server and etcd spent per
 * write, and this client's CPU per write (docs/performance.md).
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.ringmaster.bench.sharder.ApiServerWriteRate --objects 5000 --in-flight 50</pre>
 */
public final class ApiServerWriteRate {

    private static final String NAMESPACE = "write-rate";
    private static final ResolvedResource CONFIG_MAPS = new ResolvedResource("", "v1", "configmaps", "ConfigMap", true);
    private static final ResolvedResource SECRETS = new ResolvedResource("", "v1", "secrets", "Secret", true);

    private final KubernetesClient client;
    private final int inFlight;
    private final List<ProcessHandle> server;

    private ApiServerWriteRate(KubernetesClient client, int inFlight) {
        this.client = client;
        this.inFlight = inFlight;
        this.server = ProcessHandle.current().descendants()
                .filter(process -> process.info().command().map(command -> command.endsWith("/kube-apiserver")
                        || command.endsWith("/etcd")).orElse(false))
                .toList();
    }

    public static void main(String[] args) throws Exception {
        BenchArgs options = BenchArgs.parse(ApiServerWriteRate.class, args, "objects", "rounds", "in-flight");
        int objects = options.integer("objects", 5000);
        int rounds = options.integer("rounds", 2);
        RealApiServer real = RealApiServer.shared();
        KubernetesClient admin = real.admin();
        admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
                .serverSideApply();
        ApiServerWriteRate bench = new ApiServerWriteRate(admin, options.integer("in-flight", 50));
        System.out.printf(Locale.ROOT, "kube-apiserver %s; %,d objects of each kind, %d writes in flight; processes"
                + " measured: %s%n%n", real.gitVersion(), objects, bench.inFlight,
                bench.server.stream().map(process -> process.info().command().orElse("?")).toList());
        System.out.println("| writes | count | s | writes/s | API server + etcd CPU ms/write | client CPU ms/write |");
        System.out.println("|---|---:|---:|---:|---:|---:|");
        bench.measure("create ConfigMaps", objects, i -> () -> admin.configMaps().inNamespace(NAMESPACE)
                .resource(new ConfigMapBuilder().withNewMetadata().withName(name(i)).endMetadata()
                        .addToData("value", name(i)).build()).create());
        bench.measure("create Secrets", objects, i -> () -> admin.secrets().inNamespace(NAMESPACE)
                .resource(new SecretBuilder().withNewMetadata().withName("checksums-" + name(i)).endMetadata()
                        .addToData("value", "MDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAw")
                        .build()).create());
        LabelWriter writer = new LabelWriter(admin);
        for (int round = 1; round <= rounds; round++) {
            String shard = "shard-" + round;
            for (ResolvedResource resource : List.of(CONFIG_MAPS, SECRETS)) {
                List<? extends HasMetadata> items = resource == CONFIG_MAPS
                        ? admin.configMaps().inNamespace(NAMESPACE).list().getItems()
                        : admin.secrets().inNamespace(NAMESPACE).list().getItems();
                bench.measure("label patch " + resource.resource() + " (round " + round + ")", items.size(), i -> () -> {
                    HasMetadata item = items.get(i);
                    LabelWriter.Outcome outcome = writer.write(resource, NAMESPACE, item.getMetadata().getName(),
                            item.getMetadata().getResourceVersion(), Map.of("bench-shard", shard));
                    if (outcome != LabelWriter.Outcome.WRITTEN) {
                        throw new IllegalStateException(item.getMetadata().getName() + ": " + outcome);
                    }
                    return outcome;
                });
            }
        }
        System.exit(0);
    }

    private static String name(int i) {
        return String.format("cm-%06d", i);
    }

    /** Runs {@code count} writes, {@code inFlight} at once, and prints their row. */
    private void measure(String what, int count, IntFunction<java.util.concurrent.Callable<?>> write) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(inFlight);
        double cpuBefore = serverCpuSeconds();
        double clientBefore = cpuSeconds(ProcessHandle.current().pid());
        long start = System.nanoTime();
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                done.add(pool.submit(write.apply(i)));
            }
            for (Future<?> future : done) {
                future.get();
            }
        } finally {
            pool.shutdown();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        double cpu = serverCpuSeconds() - cpuBefore;
        double client = cpuSeconds(ProcessHandle.current().pid()) - clientBefore;
        System.out.printf(Locale.ROOT, "| %s | %,d | %.1f | %.0f | %.2f | %.2f |%n", what, count, seconds, count / seconds,
                cpu * 1000 / count, client * 1000 / count);
    }

    /** User + system CPU of the API server and etcd processes (Linux /proc, clock ticks of 1/100 s). */
    private double serverCpuSeconds() throws IOException {
        double seconds = 0;
        for (ProcessHandle process : server) {
            seconds += cpuSeconds(process.pid());
        }
        return seconds;
    }

    private static double cpuSeconds(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / 100.0;
    }
}
