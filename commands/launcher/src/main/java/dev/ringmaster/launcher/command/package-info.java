/**
 * The one type shared between the launcher's class path and the bundles: exported by the system
 * bundle, so commands implemented in bundles can be run from {@code bin/ringmaster}.
 */
@Version("1.0.0")
package dev.ringmaster.launcher.command;

import org.osgi.annotation.versioning.Version;
