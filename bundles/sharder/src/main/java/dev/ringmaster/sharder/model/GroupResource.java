package dev.ringmaster.sharder.model;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import java.util.Objects;

/** A resource by API group (empty for core) and plural name. */
public class GroupResource {

    @JsonPropertyDescription("API group of the resource; empty for the core group.")
    private String group = "";

    @Required
    @JsonPropertyDescription("Plural resource name, e.g. configmaps.")
    private String resource;

    public GroupResource() {
    }

    public GroupResource(String group, String resource) {
        this.group = group == null ? "" : group;
        this.resource = resource;
    }

    public String getGroup() {
        return group;
    }

    public void setGroup(String group) {
        this.group = group == null ? "" : group;
    }

    public String getResource() {
        return resource;
    }

    public void setResource(String resource) {
        this.resource = resource;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof GroupResource that && group.equals(that.group) && Objects.equals(resource, that.resource);
    }

    @Override
    public int hashCode() {
        return Objects.hash(group, resource);
    }

    @Override
    public String toString() {
        return group.isEmpty() ? resource : resource + "." + group;
    }
}
