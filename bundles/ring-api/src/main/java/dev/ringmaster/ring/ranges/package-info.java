/**
 * Server-side ranges (KEP-5866, Kubernetes 1.36 {@code ShardedListAndWatch}): the 64-bit FNV-1a
 * space a range-mode ring divides among its shards, the sets of ranges a shard is assigned, and
 * their two written forms (the Lease annotation and the list/watch {@code shardSelector}).
 */
@Export
@Version("1.0.0")
package dev.ringmaster.ring.ranges;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
