package dev.ringmaster.sharder.kube;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.testing.apiserver.RealApiServer;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link ObjectPages} on a real API server, whose watch cache serves a list with
 * {@code resourceVersion=0} whole, ignoring {@code limit}: the sharder's memory per rebalance pass
 * is bounded only if every page, the first included, really is a page.
 */
class ObjectPagesIT {

    private static final String NAMESPACE = "object-pages-it";
    private static final int OBJECTS = 260;
    private static final int PAGE_SIZE = 100;

    private static final KubernetesClient ADMIN = RealApiServer.shared().admin();

    @BeforeAll
    static void createObjects() {
        ADMIN.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
                .serverSideApply();
        IntStream.range(0, OBJECTS).parallel().forEach(i -> ADMIN.configMaps().inNamespace(NAMESPACE).resource(
                new ConfigMapBuilder().withNewMetadata().withName("cm-" + i).addToLabels("half", i % 2 == 0 ? "even" : "odd")
                        .endMetadata().build()).create());
    }

    @Test
    void everyPageHoldsAtMostAPageOfObjectsAndTogetherAllOfThemOnce() {
        List<Integer> sizes = new ArrayList<>();
        List<String> objects = new ArrayList<>();
        new ObjectPages(ADMIN, PAGE_SIZE).forEachPage(configMaps(), null, page -> {
            sizes.add(page.size());
            page.stream().map(meta -> meta.getNamespace() + "/" + meta.getName()).forEach(objects::add);
        });
        // the ConfigMaps of the whole cluster: this test's and those of other tests sharing the server
        int all = ADMIN.configMaps().inAnyNamespace().list().getItems().size();
        assertThat(all).isGreaterThanOrEqualTo(OBJECTS);
        assertThat(sizes).hasSize((all + PAGE_SIZE - 1) / PAGE_SIZE);
        assertThat(sizes.subList(0, sizes.size() - 1)).containsOnly(PAGE_SIZE);
        assertThat(objects).doesNotHaveDuplicates().hasSize(all);
    }

    @Test
    void aLabelSelectorIsAppliedBeforePaging() {
        List<Integer> sizes = new ArrayList<>();
        new ObjectPages(ADMIN, PAGE_SIZE).forEachPage(configMaps(), "half=even",
                page -> sizes.add(page.size()));
        assertThat(sizes.stream().mapToInt(Integer::intValue).sum()).isEqualTo(OBJECTS / 2);
        assertThat(sizes).allSatisfy(size -> assertThat(size).isLessThanOrEqualTo(PAGE_SIZE));
    }

    private static ResolvedResource configMaps() {
        return new ResourceCatalog(ADMIN).resolve("", "configmaps").orElseThrow();
    }
}
