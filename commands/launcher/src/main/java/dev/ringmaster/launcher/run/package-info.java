/**
 * The flags of {@code ringmaster run} and the configuration keys they set: shared between the
 * launcher's class path, which passes them as framework properties, and the run-flags bundle, which
 * puts them over {@code etc/}; exported by the system bundle.
 */
@Version("1.1.0")
package dev.ringmaster.launcher.run;

import org.osgi.annotation.versioning.Version;
