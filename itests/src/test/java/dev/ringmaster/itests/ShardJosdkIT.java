package dev.ringmaster.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import dev.ringmaster.itests.support.Distribution;
import dev.ringmaster.itests.support.MockApiServer;
import dev.ringmaster.itests.support.SharderPaxExam;
import dev.ringmaster.itests.support.Until;
import dev.ringmaster.ring.RingContract;
import dev.ringmaster.shard.client.Sharding;
import dev.ringmaster.shard.josdk.ShardedOperator;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.inject.Inject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;

/**
 * shard-josdk in the distribution's Felix, as an operator bundle would use it: beside the
 * distribution's bundles, shard-client, JOSDK wrapped as a bundle ({@code josdk-osgi}) and
 * java-diff-utils are installed, all resolve and start, and a {@link ShardedOperator} built inside
 * the framework reconciles its shard's ConfigMap, hands a drained one back and releases its Lease on
 * stop, against the mock API server in the test JVM (assignments written by the test, no sharder).
 */
@RunWith(SharderPaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class ShardJosdkIT {

    private static final String MOCK_URL = "ringmaster.itests.josdk.mock";
    private static final Set<String> BUNDLES = Set.of("dev.ringmaster.shard.josdk", "dev.ringmaster.josdk.osgi",
            "io.github.java-diff-utils", "dev.ringmaster.shard.client");

    @Inject
    private BundleContext context;

    @org.ops4j.pax.exam.Configuration
    public Option[] config() {
        List<Option> options = new ArrayList<>(StrategyHotSwapIT.distributionOptions(getClass()));
        options.add(systemProperty(MOCK_URL).value(MockApiServer.start()));
        options.add(bundle(Distribution.shardClientBundle().toUri().toString()).startLevel(3));
        Distribution.josdkBundles().forEach(jar -> options.add(bundle(jar.toUri().toString()).startLevel(3)));
        return options.toArray(Option[]::new);
    }

    /** Records the ConfigMaps it reconciles. */
    @ControllerConfiguration(name = "bundled-josdk")
    public static final class Recorder implements Reconciler<ConfigMap> {

        final List<String> reconciled = new CopyOnWriteArrayList<>();

        @Override
        public UpdateControl<ConfigMap> reconcile(ConfigMap configMap, Context<ConfigMap> context) {
            reconciled.add(configMap.getMetadata().getName());
            return UpdateControl.noUpdate();
        }
    }

    @Test
    public void shardJosdkAndJosdkResolveAndStartBesideTheDistribution() {
        for (String name : BUNDLES) {
            Bundle bundle = null;
            for (Bundle installed : context.getBundles()) {
                if (name.equals(installed.getSymbolicName())) {
                    bundle = installed;
                }
            }
            assertNotNull(name + " installed", bundle);
            assertEquals(name + " active", Bundle.ACTIVE, bundle.getState());
        }
    }

    @Test
    public void aShardedOperatorInTheFrameworkReconcilesItsObjectsAndHandsDrainsBack() {
        String ring = "bundled-josdk";
        String namespace = "bundled-josdk";
        String shardLabel = RingContract.shardLabel(ring);
        String drainLabel = RingContract.drainLabel(ring);
        KubernetesClient client = newClient(System.getProperty(MOCK_URL));
        create(client, namespace, "mine", Map.of(shardLabel, "josdk-0"));
        create(client, namespace, "other", Map.of(shardLabel, "josdk-1"));
        create(client, namespace, "drained", Map.of(shardLabel, "josdk-0", drainLabel, "true"));
        Sharding sharding = Sharding.forRing(ring).shard("josdk-0").namespace(namespace).client(client).build();
        ShardedOperator operator = ShardedOperator.builder(sharding)
                .configuration(o -> o.withKubernetesClient(client).withCloseClientOnStop(false))
                .build();
        Recorder recorder = new Recorder();
        operator.register(recorder, controller -> controller.settingNamespace(namespace));
        operator.start();
        try {
            Until.holds(Until.IN_PROCESS, "the drained ConfigMap handed back", () -> client.configMaps()
                    .inNamespace(namespace).withName("drained").get().getMetadata().getLabels().isEmpty());
            Until.holds(Until.IN_PROCESS, "its own ConfigMap reconciled", () -> recorder.reconciled.contains("mine"));
            assertEquals(List.of("mine"), List.copyOf(recorder.reconciled));
        } finally {
            operator.stop();
        }
        Lease lease = client.leases().inNamespace(namespace).withName("josdk-0").get();
        client.close();
        assertTrue("the Lease released on stop: " + lease.getSpec(), lease.getSpec().getHolderIdentity() == null
                || lease.getSpec().getHolderIdentity().isEmpty());
    }

    private static void create(KubernetesClient client, String namespace, String name, Map<String, String> labels) {
        client.configMaps().inNamespace(namespace).resource(new ConfigMapBuilder().withNewMetadata().withName(name)
                .withNamespace(namespace).withLabels(labels).endMetadata().build()).create();
    }

    private static KubernetesClient newClient(String url) {
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl(url).withTrustCerts(true)
                .withDisableHostnameVerification(true).build();
        // named, not found through ServiceLoader (which OSGi class loading can miss)
        return new KubernetesClientBuilder().withConfig(config).withHttpClientFactory(new JdkHttpClientFactory()).build();
    }
}
