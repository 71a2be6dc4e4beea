package dev.ringmaster.sharder.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.ArrayList;
import java.util.List;

/** A main resource of a ring and the resources its objects control (via owner references). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RingResourceSpec extends GroupResource {

    @JsonPropertyDescription("Resources whose objects are sharded with their controller (the owner reference with"
            + " controller=true), so an object and its children land on the same shard.")
    private List<GroupResource> controlledResources = new ArrayList<>();

    /** Ringmaster extension: resource interpreter by name; empty: the sharder's default. */
    @JsonPropertyDescription("Name of the resource interpreter that keys this resource's objects and those they"
            + " control (Ringmaster extension), e.g. \"namespace\" to keep a namespace on one shard. Empty or"
            + " omitted: the sharder's default interpreter.")
    private String interpreter;

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

    public String getInterpreter() {
        return interpreter;
    }

    public void setInterpreter(String interpreter) {
        this.interpreter = interpreter;
    }
}
