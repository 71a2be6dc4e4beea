package dev.ringmaster.sharder.model;

import dev.ringmaster.ring.RingContract;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * {@code sharding.timebertt.dev/v1alpha1 ControllerRing}: the reference sharder's ring kind from
 * v0.9.0 on, with the spec and status of every {@link RingObject}. Its labels, Lease label, webhook
 * path and webhook configuration name follow {@link dev.ringmaster.ring.RingKind#CONTROLLER_RING}.
 * Annotation values must be compile-time constants, so the Kind name is spelled out here;
 * {@code RingObjectTest} holds it equal to {@code RingKind}'s.
 */
@Group(RingContract.API_GROUP)
@Version(RingContract.API_VERSION)
@Kind("ControllerRing")
@ValidationRule(value = RingObject.NAME_LENGTH_RULE,
        message = "the ControllerRing name must be at most 63 characters long")
public class ControllerRing extends RingObject {
}
