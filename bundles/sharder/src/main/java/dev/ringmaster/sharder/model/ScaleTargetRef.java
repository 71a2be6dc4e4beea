package dev.ringmaster.sharder.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import java.util.Objects;

/** {@code spec.autoscaling.scaleTargetRef}: the shards' workload, any resource with a scale subresource. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ScaleTargetRef {

    @Required
    @JsonPropertyDescription("API version of the shards' workload, e.g. apps/v1.")
    private String apiVersion;

    @Required
    @JsonPropertyDescription("Kind of the shards' workload, e.g. StatefulSet: any kind with a scale subresource.")
    private String kind;

    @Required
    @JsonPropertyDescription("Name of the shards' workload.")
    private String name;

    @Required
    @JsonPropertyDescription("Namespace of the shards' workload.")
    private String namespace;

    public ScaleTargetRef() {
    }

    public ScaleTargetRef(String apiVersion, String kind, String name, String namespace) {
        this.apiVersion = apiVersion;
        this.kind = kind;
        this.name = name;
        this.namespace = namespace;
    }

    public String getApiVersion() {
        return apiVersion;
    }

    public void setApiVersion(String apiVersion) {
        this.apiVersion = apiVersion;
    }

    public String getKind() {
        return kind;
    }

    public void setKind(String kind) {
        this.kind = kind;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public String getNamespace() {
        return namespace;
    }

    public void setNamespace(String namespace) {
        this.namespace = namespace;
    }

    /** How messages name the target: {@code StatefulSet shop/shards (apps/v1)}. Not a bean getter. */
    public String describe() {
        return kind + " " + namespace + "/" + name + " (" + apiVersion + ")";
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ScaleTargetRef that && Objects.equals(apiVersion, that.apiVersion)
                && Objects.equals(kind, that.kind) && Objects.equals(name, that.name)
                && Objects.equals(namespace, that.namespace);
    }

    @Override
    public int hashCode() {
        return Objects.hash(apiVersion, kind, name, namespace);
    }

    @Override
    public String toString() {
        return "ScaleTargetRef[" + describe() + "]";
    }
}
