package dev.ringmaster.sharder.model;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.ring.RingKind;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * {@code sharding.timebertt.dev/v1alpha1 ControllerRing}: the reference sharder's ring kind from
 * v0.9.0 on. Same spec and status as {@link ClusterRing}; its labels, Lease label, webhook path and
 * webhook configuration name follow {@link RingKind#CONTROLLER_RING}. The names in the annotations
 * must be compile-time constants, so they are spelled out here; {@code ControllerRingTest} holds
 * them equal to {@link RingKind}'s.
 */
@Group(RingContract.API_GROUP)
@Version(RingContract.API_VERSION)
@Kind("ControllerRing")
@Plural("controllerrings")
@Singular("controllerring")
// The ring name is a label value on shard Leases and the name part of the ring's label keys.
@ValidationRule(value = "self.metadata.name.size() <= " + RingObject.MAX_NAME_LENGTH,
        message = "the ControllerRing name must be at most 63 characters long")
@AdditionalPrinterColumn(name = "Ready", type = AdditionalPrinterColumn.Type.STRING,
        jsonPath = ".status.conditions[?(@.type == \"Ready\")].status")
@AdditionalPrinterColumn(name = "Available", type = AdditionalPrinterColumn.Type.INTEGER,
        jsonPath = ".status.availableShards")
@AdditionalPrinterColumn(name = "Shards", type = AdditionalPrinterColumn.Type.INTEGER, jsonPath = ".status.shards")
@AdditionalPrinterColumn(name = "Age", type = AdditionalPrinterColumn.Type.DATE,
        jsonPath = ".metadata.creationTimestamp")
public class ControllerRing extends RingObject {

    @Override
    public RingKind ringKind() {
        return RingKind.CONTROLLER_RING;
    }
}
