/**
 * The shard's load report as Micrometer metrics ({@link dev.ringmaster.shard.client.metrics.ShardLoadMetrics}). Only
 * this package needs Micrometer; the bundle imports it optionally, so a shard without metrics does not install it.
 */
@Export
@Version("1.0.0")
package dev.ringmaster.shard.client.metrics;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
