package dev.ringmaster.launcher;

import dev.ringmaster.launcher.command.Command;
import dev.ringmaster.launcher.run.RunFlag;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The system as {@code bin/ringmaster run} starts it — boot/ and bundle/ in Felix, File Install
 * watching a configuration folder and deploy/ — for {@code run} itself and for processes that embed
 * it, such as the sandbox. Each instance has a framework storage folder of its own, removed on close.
 */
public final class Ringmaster implements AutoCloseable {

    private final FelixRuntime runtime;
    private final Path storage;

    private Ringmaster(FelixRuntime runtime, Path storage) {
        this.runtime = runtime;
        this.storage = storage;
    }

    /**
     * Starts the system and returns once every bundle has started.
     *
     * @param home       the distribution
     * @param etc        the configuration folder File Install watches (one {@code PID.cfg} per PID)
     * @param properties framework properties, e.g. the {@code ringmaster.run.*} values the etc/ files
     *                   refer to; those not given take the defaults of {@code run}'s flags
     * @param shell      whether to install the Gogo shell (reading this process's standard input)
     * @param err        where framework errors are reported
     */
    public static Ringmaster start(Path home, Path etc, Map<String, String> properties, boolean shell, PrintStream err)
            throws LaunchException {
        Path storage = temporaryStorage();
        Map<String, String> all = new HashMap<>(frameworkProperties(storage));
        all.putAll(RunOptions.defaults());
        all.putAll(properties);
        all.put("felix.fileinstall.dir", etc + "," + home.resolve("deploy"));
        all.put("felix.fileinstall.poll", "1000");
        all.put("felix.fileinstall.noInitialDelay", "true");
        all.put("felix.fileinstall.start.level", String.valueOf(FelixRuntime.BUNDLE_FOLDERS.size()));
        all.put("felix.fileinstall.log.level", "2"); // warnings and errors
        // never write configurations changed at run time back into etc/: the files are the operator's
        all.put("felix.fileinstall.enableConfigSave", "false");
        // File Install owns deploy/ here, so that it can update and uninstall what it installed
        List<String> folders = shell ? FelixRuntime.SHELL_FOLDERS : FelixRuntime.SYSTEM_FOLDERS;
        return new Ringmaster(startOrClean(home, storage, all, folders, err), storage);
    }

    /**
     * Starts the distribution's bundles of boot/, bundle/ and deploy/ as they are, with nothing
     * watched, for a command that runs once (e.g. {@code simulate}).
     */
    static Ringmaster startOnce(Path home, PrintStream err) throws LaunchException {
        Path storage = temporaryStorage();
        Map<String, String> all = new HashMap<>(frameworkProperties(storage));
        all.put("felix.fileinstall.dir", storage.resolve("unwatched").toString());
        return new Ringmaster(startOrClean(home, storage, all, FelixRuntime.BUNDLE_FOLDERS, err), storage);
    }

    FelixRuntime runtime() {
        return runtime;
    }

    /** Blocks until the framework has stopped, by {@link #close()} or from within (the shell's exit). */
    public void awaitStop() {
        runtime.awaitStop();
    }

    /** Stops every bundle in order, then removes the framework's storage. */
    @Override
    public void close() {
        runtime.close();
        deleteRecursively(storage);
    }

    private static FelixRuntime startOrClean(Path home, Path storage, Map<String, String> properties,
            List<String> folders, PrintStream err) throws LaunchException {
        try {
            return FelixRuntime.start(home, storage, properties, folders, err);
        } catch (LaunchException e) {
            deleteRecursively(storage);
            throw e;
        }
    }

    private static Path temporaryStorage() throws LaunchException {
        try {
            return Files.createTempDirectory("ringmaster-felix-");
        } catch (IOException e) {
            throw new LaunchException("cannot create the framework's storage directory: " + e.getMessage(), e);
        }
    }

    private static Map<String, String> frameworkProperties(Path storage) {
        return Map.of(
                "org.osgi.framework.storage", storage.toString(),
                "org.osgi.framework.storage.clean", "onFirstInit",
                "org.osgi.framework.system.packages.extra",
                // the types shared with bundles: commands, and the flag table the run-flags bundle reads
                Command.class.getPackageName() + ";version=1.0.0," + RunFlag.class.getPackageName() + ";version=1.1.0",
                "felix.log.level", "0", // Felix logs to stdout; errors reach stderr via the framework listener
                "ds.loglevel", "warn");
    }

    private static void deleteRecursively(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // a left-over temporary directory is harmless
        }
    }
}
