/**
 * The command-line syntax shared by {@code bin/ringmaster run}, {@code simulate}, {@code sandbox}, the
 * examples and the bench mains: {@link Flags} says which flags a command takes, {@link Given} what a
 * command line gave, {@link UsageException} what was wrong with it, {@link StopOnSignal} how a command
 * ends on SIGTERM, {@link JsonText} the strings of its JSON output, {@link Durations} the durations of
 * its flags and values.
 */
@Export
@Version("1.2.0")
package dev.ringmaster.flags;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
