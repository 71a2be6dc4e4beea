/**
 * What shards measure of their work and publish on their Leases ({@link LoadReport}), and the leader's view of it
 * over the whole hash space ({@link LoadMap}), which placement policies balance.
 */
@Export
@Version("1.0.0")
package dev.ringmaster.ring.load;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
