package dev.ringmaster.sharder.model;

import java.util.Objects;

/** A resource by API group (empty for core) and plural name. */
public class GroupResource {

    private String group = "";
    private String resource;

    public GroupResource() {
    }

    public GroupResource(String group, String resource) {
        this.group = group;
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
