package dev.ringmaster.sharder.model;

import java.util.ArrayList;
import java.util.List;

/** A main resource of a ring and the resources its objects control (via owner references). */
public class RingResourceSpec extends GroupResource {

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
