/**
 * Plug-in SPIs. Each is implemented by DS components registered with a {@code name} service
 * property; consumers bind them dynamically and select one by name.
 */
@Export
@Version("1.1.0")
package dev.ringmaster.ring.spi;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
