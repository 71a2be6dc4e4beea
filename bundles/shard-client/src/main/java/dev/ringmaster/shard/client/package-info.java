/** The shard side of the sharding contract, for controllers written in Java. */
@Export
@Version("0.6.0")
package dev.ringmaster.shard.client;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
