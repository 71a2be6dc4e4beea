package dev.ringmaster.sharder.model;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.ArrayList;
import java.util.List;

/** A main resource of a ring and the resources its objects control (via owner references). */
public class RingResourceSpec extends GroupResource {

    @JsonPropertyDescription("Resources whose objects are sharded with their controller (the owner reference with"
            + " controller=true), so an object and its children land on the same shard.")
    private List<GroupResource> controlledResources = new ArrayList<>();

    public RingResourceSpec() {
    }

    public RingResourceSpec(String group, String resource, List<GroupResource> controlledResources) {
        super(group, resource);
        this.controlledResources = controlledResources;
    }

    public List<GroupResource> getControlledResources() {
        return controlledResources;
    }

    public void setControlledResources(List<GroupResource> controlledResources) {
        this.controlledResources = controlledResources == null ? new ArrayList<>() : controlledResources;
    }
}
