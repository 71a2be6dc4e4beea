/**
 * java-operator-sdk operators as Ringmaster shards: {@link dev.ringmaster.shard.josdk.ShardedOperator}.
 */
@Export
@Version("0.1.0")
package dev.ringmaster.shard.josdk;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
