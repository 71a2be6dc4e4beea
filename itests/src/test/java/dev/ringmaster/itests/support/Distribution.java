package dev.ringmaster.itests.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.startlevel.BundleStartLevel;

/**
 * Where the build put what the tests use: the distribution archive unpacked into
 * {@code target/ringmaster/}, the example plug-in jar copied into {@code target/plugins/}, and a
 * scratch folder. Failsafe passes the paths as system properties; the defaults are the same paths
 * relative to the module, for running a test from an IDE after {@code mvn pre-integration-test}.
 */
public final class Distribution {

    private Distribution() {
    }

    /** The unpacked distribution: {@code bin/}, {@code lib/}, {@code boot/}, {@code bundle/}, {@code deploy/}. */
    public static Path home() {
        Path home = path("ringmaster.itests.dist", "target/ringmaster");
        if (!Files.isRegularFile(home.resolve("bin/ringmaster"))) {
            throw new IllegalStateException("no unpacked distribution at " + home
                    + "; run the build through pre-integration-test first");
        }
        return home;
    }

    /** The jars of one bundle folder of the distribution, in name order. */
    public static List<Path> jars(String folder) {
        return jarsIn(home().resolve(folder));
    }

    /** The one jar of a distribution folder whose file name starts with {@code prefix}. */
    public static Path jar(String folder, String prefix) {
        List<Path> matches = jars(folder).stream()
                .filter(jar -> jar.getFileName().toString().startsWith(prefix))
                .toList();
        if (matches.size() != 1) {
            throw new IllegalStateException("expected one " + prefix + "*.jar in " + folder + "/, found " + matches);
        }
        return matches.get(0);
    }

    /** Installs the rendezvous strategy from {@code bundle/} and starts it at its start level, as the launcher does. */
    public static Bundle installRendezvous(BundleContext context) throws BundleException {
        Bundle bundle = context.installBundle(jar("bundle", "ring-rendezvous-").toUri().toString());
        bundle.adapt(BundleStartLevel.class).setStartLevel(2);
        bundle.start();
        return bundle;
    }

    /** The installed bundle with this symbolic name, if any. */
    public static Optional<Bundle> installed(BundleContext context, String symbolicName) {
        return Arrays.stream(context.getBundles()).filter(bundle -> symbolicName.equals(bundle.getSymbolicName()))
                .findFirst();
    }

    /** The plug-in jars in {@code deploy/} of the unpacked distribution itself (it ships none). */
    public static List<Path> jarsInDeployOfShippedDistribution() {
        return jarsIn(home().resolve("deploy"));
    }

    /** The example jump-hash strategy plug-in jar. */
    public static Path jumpHashPlugin() {
        return onlyJarIn(path("ringmaster.itests.plugins", "target/plugins"), "the one example plug-in jar");
    }

    private static Path onlyJarIn(Path folder, String what) {
        List<Path> jars = jarsIn(folder);
        if (jars.size() != 1) {
            throw new IllegalStateException("expected " + what + " in " + folder + ", found " + jars);
        }
        return jars.get(0);
    }

    /** The shard-client bundle, as its module builds it. */
    public static Path shardClientBundle() {
        return onlyJarIn(path("ringmaster.itests.shard.client", "target/shard-client"), "the shard-client jar");
    }

    /** shard-josdk, JOSDK wrapped as a bundle (josdk-osgi) and java-diff-utils, as their modules build them. */
    public static List<Path> josdkBundles() {
        return jarsIn(path("ringmaster.itests.josdk", "target/josdk"));
    }

    /** The slf4j API bundle and its binding fragment that Pax Exam's own bundles need in the framework. */
    public static List<Path> frameworkLoggingBundles() {
        return jarsIn(path("ringmaster.itests.framework.logging", "target/framework-logging"));
    }

    /** A scratch folder under {@code target/}, emptied by every build. */
    public static Path work(String name) {
        Path work = path("ringmaster.itests.work", "target/it-work").resolve(name);
        try {
            return Files.createDirectories(work);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A fresh copy of the unpacked distribution under target/, so that tests do not share deploy/ or etc/. */
    public static Path copy(String name) throws IOException {
        Path source = home();
        Path target = work("copies").resolve(name);
        deleteRecursively(target);
        try (Stream<Path> files = Files.walk(source)) {
            for (Path file : files.toList()) {
                Path copy = target.resolve(source.relativize(file).toString());
                if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
                    Files.createDirectories(copy);
                } else {
                    Files.copy(file, copy, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
        return target;
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(file);
            }
        }
    }

    private static List<Path> jarsIn(Path folder) {
        try (Stream<Path> files = Files.list(folder)) {
            return files.filter(file -> file.getFileName().toString().endsWith(".jar")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path path(String property, String fallback) {
        return Path.of(System.getProperty(property, fallback)).toAbsolutePath().normalize();
    }
}
