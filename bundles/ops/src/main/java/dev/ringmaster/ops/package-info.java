/**
 * The operations API of Ringmaster: {@link dev.ringmaster.ops.ReadinessCheck} services decide what
 * {@code GET /readyz} answers. Metrics are recorded through the Micrometer
 * {@code io.micrometer.core.instrument.MeterRegistry} service the ops bundle publishes; that type
 * belongs to the micrometer-core bundle, not to this package.
 */
@Export
@Version("1.1.0")
package dev.ringmaster.ops;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
