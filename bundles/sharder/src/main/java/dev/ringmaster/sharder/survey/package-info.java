/**
 * A ring read from the cluster as the sharder sees it, for tools beside the sharder (such as
 * {@code bin/ringmaster simulate --ring}): the {@link dev.ringmaster.sharder.survey.RingSurveyor}
 * service reads the ring object, judges its shard Leases with the default lease detector and keys its
 * objects with the ring's resource interpreters, all with the sharder's own code. It writes nothing.
 */
@Export
@Version("1.0.0")
package dev.ringmaster.sharder.survey;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
