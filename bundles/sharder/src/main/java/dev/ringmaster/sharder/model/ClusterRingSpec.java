package dev.ringmaster.sharder.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.LabelSelector;
import java.util.ArrayList;
import java.util.List;

/** What a ClusterRing shards and how. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ClusterRingSpec {

    /** The main resources of the sharded controller, each with the resources it controls. */
    private List<RingResourceSpec> resources = new ArrayList<>();

    /** Namespaces whose objects are sharded; empty: all but kube-system and sharding-system. */
    private LabelSelector namespaceSelector;

    /** Ringmaster extension: partitioning strategy by name; empty: the sharder's default. */
    private String strategy;

    public List<RingResourceSpec> getResources() {
        return resources;
    }

    public void setResources(List<RingResourceSpec> resources) {
        this.resources = resources;
    }

    public LabelSelector getNamespaceSelector() {
        return namespaceSelector;
    }

    public void setNamespaceSelector(LabelSelector namespaceSelector) {
        this.namespaceSelector = namespaceSelector;
    }

    public String getStrategy() {
        return strategy;
    }

    public void setStrategy(String strategy) {
        this.strategy = strategy;
    }
}
