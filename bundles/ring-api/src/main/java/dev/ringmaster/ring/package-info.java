/**
 * Ringmaster's value types and the wire contract shared with shards: shards, ring snapshots,
 * object references, shard states and the label/name rules.
 */
@Export
@Version("1.5.0")
package dev.ringmaster.ring;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
