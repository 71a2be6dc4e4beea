package dev.ringmaster.launcher;

import dev.ringmaster.launcher.command.Command;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.felix.framework.FrameworkFactory;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.startlevel.BundleStartLevel;
import org.osgi.framework.startlevel.FrameworkStartLevel;

/**
 * A running Felix framework holding the distribution's bundles: {@code boot/} (infrastructure that
 * must be active before anything loads classes) at start level 1, {@code bundle/} (the system) at 2
 * and {@code deploy/} (operator-supplied plug-ins) at 3.
 */
final class FelixRuntime implements AutoCloseable {

    /** The bundle folders of a distribution, in start order. */
    static final List<String> BUNDLE_FOLDERS = List.of("boot", "bundle", "deploy");
    /** The folders of the system itself, without the operator's plug-ins. */
    static final List<String> SYSTEM_FOLDERS = BUNDLE_FOLDERS.subList(0, 2);
    /** The system and the Gogo shell, which is installed only on request. */
    static final List<String> SHELL_FOLDERS = List.of("boot", "bundle", "shell");

    private static final long START_TIMEOUT_SECONDS = 60;

    private final Framework framework;

    private FelixRuntime(Framework framework) {
        this.framework = framework;
    }

    /**
     * Starts the framework with the jars of {@code folders} installed and started, the n-th folder at
     * start level n.
     */
    static FelixRuntime start(Path home, Path storage, Map<String, String> properties, List<String> folders,
            PrintStream err) throws LaunchException {
        Framework framework = new FrameworkFactory().newFramework(properties);
        FelixRuntime runtime = new FelixRuntime(framework);
        try {
            framework.init();
            BundleContext context = framework.getBundleContext();
            for (int i = 0; i < folders.size(); i++) {
                installFolder(context, home.resolve(folders.get(i)), i + 1, err);
            }
            CountDownLatch started = new CountDownLatch(1);
            context.addFrameworkListener(event -> {
                if (event.getType() == FrameworkEvent.STARTLEVEL_CHANGED) {
                    started.countDown();
                } else if (event.getType() == FrameworkEvent.ERROR) {
                    err.println("ringmaster: " + describe(event.getBundle()) + ": " + rootMessage(event.getThrowable()));
                }
            });
            framework.start();
            framework.adapt(FrameworkStartLevel.class).setStartLevel(BUNDLE_FOLDERS.size());
            if (!started.await(START_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                throw new LaunchException("the framework did not start within " + START_TIMEOUT_SECONDS + " s", null);
            }
            return runtime;
        } catch (BundleException | IOException e) {
            runtime.close();
            throw new LaunchException("cannot start the framework in " + storage + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            runtime.close();
            throw new LaunchException("interrupted while starting the framework", e);
        } catch (LaunchException e) {
            runtime.close();
            throw e;
        }
    }

    /** Installs every jar of a folder; a jar that is no bundle is reported and skipped. */
    private static void installFolder(BundleContext context, Path folder, int startLevel, PrintStream err)
            throws IOException {
        if (!Files.isDirectory(folder)) {
            return;
        }
        List<Path> jars;
        try (Stream<Path> files = Files.list(folder)) {
            jars = files.filter(file -> file.getFileName().toString().endsWith(".jar")).sorted().toList();
        }
        for (Path jar : jars) {
            try {
                Bundle bundle = context.installBundle(jar.toUri().toString());
                bundle.adapt(BundleStartLevel.class).setStartLevel(startLevel);
                if (bundle.getHeaders().get(Constants.FRAGMENT_HOST) == null) {
                    bundle.start();
                }
            } catch (BundleException e) {
                err.println("ringmaster: skipping " + folder.getFileName() + "/" + jar.getFileName() + ": "
                        + e.getMessage());
            }
        }
    }

    /** The command service registered under {@code name}, if any. */
    Optional<Command> command(String name) {
        BundleContext context = framework.getBundleContext();
        try {
            return context.getServiceReferences(Command.class, "(" + Command.NAME + "=" + name + ")").stream()
                    .findFirst()
                    .map(context::getService);
        } catch (InvalidSyntaxException e) {
            return Optional.empty(); // a name with filter syntax in it names no command
        }
    }

    /** The words of all registered commands. */
    List<String> commandNames() {
        List<String> names = new ArrayList<>();
        try {
            for (ServiceReference<Command> reference :
                    framework.getBundleContext().getServiceReferences(Command.class, null)) {
                names.add(String.valueOf(reference.getProperty(Command.NAME)));
            }
        } catch (InvalidSyntaxException e) {
            throw new AssertionError("a null filter is valid", e);
        }
        return names;
    }

    /** Blocks until the framework has stopped, by {@link #close()} or from within. */
    void awaitStop() {
        try {
            framework.waitForStop(0);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        try {
            framework.stop();
            framework.waitForStop(TimeUnit.SECONDS.toMillis(30));
        } catch (BundleException e) {
            // stopping is best effort on the way out
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String describe(Bundle bundle) {
        return bundle == null ? "framework" : bundle.getSymbolicName() + " (" + bundle.getLocation() + ")";
    }

    private static String rootMessage(Throwable throwable) {
        if (throwable == null) {
            return "error";
        }
        Throwable root = throwable;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return String.valueOf(root.getMessage());
    }
}
