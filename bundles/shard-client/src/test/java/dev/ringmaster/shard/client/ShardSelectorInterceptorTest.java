package dev.ringmaster.shard.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import org.junit.jupiter.api.Test;

class ShardSelectorInterceptorTest {

    private static final String LOWER_HALF = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')";
    /** {@link #LOWER_HALF} percent-encoded, written out by hand. */
    private static final String LOWER_HALF_ENCODED = "shardRange%28object.metadata.uid%2C%20%270x0000000000000000%27%2C%20"
            + "%270x8000000000000000%27%29";

    private final ShardSelectorInterceptor configMaps = new ShardSelectorInterceptor("", "v1", "configmaps");

    @Test
    void aListOfAllNamespacesGetsTheSelector() {
        URI rewritten = configMaps.rewrite("GET", URI.create("https://k:6443/api/v1/configmaps?limit=500"), LOWER_HALF);
        assertThat(rewritten.toString()).isEqualTo("https://k:6443/api/v1/configmaps?limit=500&shardSelector=" + LOWER_HALF_ENCODED);
        assertThat(rewritten.getQuery()).isEqualTo("limit=500&shardSelector=" + LOWER_HALF);
    }

    @Test
    void aWatchInOneNamespaceKeepsItsParameters() {
        URI watch = URI.create("https://k:6443/api/v1/namespaces/ns/configmaps?allowWatchBookmarks=true&resourceVersion=12&watch=true");
        assertThat(configMaps.rewrite("GET", watch, LOWER_HALF).toString()).isEqualTo("https://k:6443/api/v1/namespaces/ns/"
                + "configmaps?allowWatchBookmarks=true&resourceVersion=12&watch=true&shardSelector=" + LOWER_HALF_ENCODED);
    }

    @Test
    void noQueryYetAndSeveralRangesJoinedByOr() {
        String two = "shardRange(object.metadata.namespace, '0x0000000000000000', '0x4000000000000000') || "
                + "shardRange(object.metadata.namespace, '0xc000000000000000', '0x10000000000000000')";
        URI rewritten = configMaps.rewrite("GET", URI.create("https://k/api/v1/configmaps"), two);
        assertThat(rewritten.toString()).isEqualTo("https://k/api/v1/configmaps?shardSelector="
                + "shardRange%28object.metadata.namespace%2C%20%270x0000000000000000%27%2C%20%270x4000000000000000%27%29"
                + "%20%7C%7C%20"
                + "shardRange%28object.metadata.namespace%2C%20%270xc000000000000000%27%2C%20%270x10000000000000000%27%29");
        assertThat(rewritten.getQuery()).isEqualTo("shardSelector=" + two);
    }

    @Test
    void anEarlierSelectorIsReplaced() {
        URI rewritten = configMaps.rewrite("GET", URI.create("https://k/api/v1/configmaps?shardSelector=old&watch=true"), LOWER_HALF);
        assertThat(rewritten.toString()).isEqualTo("https://k/api/v1/configmaps?watch=true&shardSelector=" + LOWER_HALF_ENCODED);
    }

    @Test
    void otherRequestsPassUnchanged() {
        URI byName = URI.create("https://k/api/v1/namespaces/ns/configmaps/cm-1");
        URI otherResource = URI.create("https://k/api/v1/namespaces/ns/secrets");
        URI otherGroup = URI.create("https://k/apis/example.dev/v1/configmaps");
        URI namespaceNamedLikeTheResource = URI.create("https://k/api/v1/namespaces/configmaps");
        URI list = URI.create("https://k/api/v1/namespaces/ns/configmaps");
        assertThat(configMaps.rewrite("GET", byName, LOWER_HALF)).isSameAs(byName);
        assertThat(configMaps.rewrite("GET", otherResource, LOWER_HALF)).isSameAs(otherResource);
        assertThat(configMaps.rewrite("GET", otherGroup, LOWER_HALF)).isSameAs(otherGroup);
        assertThat(configMaps.rewrite("GET", namespaceNamedLikeTheResource, LOWER_HALF)).isSameAs(namespaceNamedLikeTheResource);
        assertThat(configMaps.rewrite("POST", list, LOWER_HALF)).isSameAs(list);
        assertThat(configMaps.rewrite("GET", list, null)).isSameAs(list);
    }

    @Test
    void aResourceOfAGroup() {
        ShardSelectorInterceptor deployments = new ShardSelectorInterceptor("apps", "v1", "deployments");
        assertThat(deployments.rewrite("GET", URI.create("https://k/apis/apps/v1/namespaces/a/deployments?watch=true"), LOWER_HALF)
                .toString()).isEqualTo("https://k/apis/apps/v1/namespaces/a/deployments?watch=true&shardSelector=" + LOWER_HALF_ENCODED);
        URI core = URI.create("https://k/api/v1/deployments");
        assertThat(deployments.rewrite("GET", core, LOWER_HALF)).isSameAs(core);
    }
}
