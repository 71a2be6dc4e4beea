package dev.ringmaster.sharder.kube;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;

/**
 * Lists the metadata of a resource's objects in pages, so memory holds one page at a time however
 * many objects there are. Asks for {@code PartialObjectMetadataList} (metadata only) and accepts a
 * full list from servers that cannot serve it. Every page is read from storage: the watch cache
 * would serve a list with {@code resourceVersion=0} whole, ignoring {@code limit}, so the first
 * page is asked for without a resourceVersion; later pages follow the continue token.
 */
public final class ObjectPages {

    static final String METADATA_ONLY = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";

    private final KubernetesClient client;
    private final int pageSize;

    public ObjectPages(KubernetesClient client, int pageSize) {
        if (pageSize < 1) {
            throw new IllegalArgumentException("page size must be positive");
        }
        this.client = client;
        this.pageSize = pageSize;
    }

    /**
     * Hands each page's object metadata to {@code page}, in order.
     *
     * @param labelSelector a label selector, or null for all objects
     * @throws KubernetesClientException if a request fails; pages handed over before stay handled
     */
    public void forEachPage(ResolvedResource resource, String labelSelector, Consumer<List<ObjectMeta>> page) {
        String continueToken = null;
        do {
            StringBuilder query = new StringBuilder("?limit=").append(pageSize);
            if (labelSelector != null) {
                query.append("&labelSelector=").append(URLEncoder.encode(labelSelector, StandardCharsets.UTF_8));
            }
            if (continueToken != null) {
                query.append("&continue=").append(URLEncoder.encode(continueToken, StandardCharsets.UTF_8));
            }
            JsonNode list = get(resource.collectionPath() + query);
            List<ObjectMeta> items = new ArrayList<>();
            for (JsonNode item : list.path("items")) {
                items.add(client.getKubernetesSerialization().convertValue(item.path("metadata"), ObjectMeta.class));
            }
            page.accept(items);
            continueToken = list.path("metadata").path("continue").asText("");
            if (continueToken.isEmpty()) {
                continueToken = null;
            }
        } while (continueToken != null);
    }

    private JsonNode get(String pathAndQuery) {
        String url = client.getMasterUrl().toString().replaceAll("/$", "") + pathAndQuery;
        HttpRequest request = client.getHttpClient().newHttpRequestBuilder().uri(url)
                .header("Accept", METADATA_ONLY).build();
        try {
            HttpResponse<String> response = client.getHttpClient().sendAsync(request, String.class).get();
            if (!response.isSuccessful()) {
                throw new KubernetesClientException("listing " + pathAndQuery + " failed: HTTP " + response.code()
                        + " " + response.body(), response.code(), null);
            }
            return client.getKubernetesSerialization().unmarshal(response.body(), JsonNode.class);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KubernetesClientException("interrupted while listing " + pathAndQuery, e);
        } catch (ExecutionException e) {
            throw new KubernetesClientException("listing " + pathAndQuery + " failed: " + e.getCause(), e.getCause());
        }
    }
}
