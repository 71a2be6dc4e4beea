package dev.ringmaster.launcher;

import dev.ringmaster.launcher.command.Command;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * {@code bin/ringmaster COMMAND [ARGS]}: boots the distribution in Felix and hands the arguments to
 * the command service registered under that word.
 */
public final class Main {

    private static final String USAGE = """
            usage: ringmaster COMMAND [ARGS]

            commands:
              run        the sharder and the webhook, until SIGTERM
              simulate   balance and movement of a partitioning strategy for a fleet of shards
            run 'ringmaster COMMAND --help' for a command's options""";

    /** SPI Fly reports every provider it wires at INFO through JUL; only its problems concern users. */
    private static final Logger SPI_FLY_LOG = Logger.getLogger("org.apache.aries.spifly");

    private final Path home;
    private final PrintStream out;
    private final PrintStream err;

    Main(Path home, PrintStream out, PrintStream err) {
        this.home = home;
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        SPI_FLY_LOG.setLevel(Level.WARNING);
        String home = System.getProperty("ringmaster.home");
        if (home == null) {
            System.err.println("ringmaster: the system property ringmaster.home is not set; start via bin/ringmaster");
            System.exit(Command.USAGE_ERROR);
        }
        System.exit(new Main(Path.of(home), System.out, System.err).run(args));
    }

    int run(String[] args) {
        if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h")) {
            (args.length == 0 ? err : out).println(USAGE);
            return args.length == 0 ? Command.USAGE_ERROR : 0;
        }
        List<String> commandArgs = Arrays.asList(args).subList(1, args.length);
        boolean serve = args[0].equals("run");
        Map<String, String> runProperties = Map.of();
        if (serve) {
            if (commandArgs.contains("--help") || commandArgs.contains("-h")) {
                out.println(RunOptions.USAGE);
                return 0;
            }
            try {
                runProperties = RunOptions.parse(commandArgs);
            } catch (RunOptions.UsageException e) {
                err.println("ringmaster run: " + e.getMessage() + " (see ringmaster run --help)");
                return Command.USAGE_ERROR;
            }
        }
        Path storage;
        try {
            storage = Files.createTempDirectory("ringmaster-felix-");
        } catch (IOException e) {
            err.println("ringmaster: cannot create the framework's storage directory: " + e.getMessage());
            return 1;
        }
        Map<String, String> properties = new HashMap<>(frameworkProperties(storage));
        properties.putAll(serve ? watching(runProperties) : notWatching(storage));
        // in `run`, File Install owns deploy/ so that it can update and uninstall what it installed
        List<String> folders = !serve ? FelixRuntime.BUNDLE_FOLDERS
                : Boolean.parseBoolean(runProperties.get(RunOptions.SHELL)) ? FelixRuntime.SHELL_FOLDERS
                : FelixRuntime.SYSTEM_FOLDERS;
        try (FelixRuntime runtime = FelixRuntime.start(home, storage, properties, folders, err)) {
            if (serve) {
                return serve(runtime);
            }
            return runtime.command(args[0])
                    .map(command -> command.run(commandArgs, out, err))
                    .orElseGet(() -> {
                        err.println("ringmaster: unknown command '" + args[0] + "'; commands: "
                                + String.join(", ", new TreeSet<>(runtime.commandNames())));
                        return Command.USAGE_ERROR;
                    });
        } catch (LaunchException e) {
            err.println("ringmaster: " + e.getMessage());
            return 1;
        } finally {
            deleteRecursively(storage);
        }
    }

    /** Runs until the framework stops: on SIGTERM (or Ctrl-C) every bundle is stopped in order first. */
    private int serve(FelixRuntime runtime) {
        Thread stopOnSignal = new Thread(runtime::close, "ringmaster-shutdown");
        Runtime.getRuntime().addShutdownHook(stopOnSignal);
        out.println("ringmaster: running; configuration in " + home.resolve("etc") + ", plug-ins in "
                + home.resolve("deploy") + "; stop with SIGTERM");
        runtime.awaitStop();
        return 0;
    }

    private static Map<String, String> frameworkProperties(Path storage) {
        return Map.of(
                "org.osgi.framework.storage", storage.toString(),
                "org.osgi.framework.storage.clean", "onFirstInit",
                "org.osgi.framework.system.packages.extra",
                Command.class.getPackageName() + ";version=1.0.0",
                "felix.log.level", "0", // Felix logs to stdout; errors reach stderr via the framework listener
                "ds.loglevel", "warn");
    }

    /** File Install watches etc/ and deploy/; the flags fill the etc/ files' placeholders. */
    private Map<String, String> watching(Map<String, String> runProperties) {
        Map<String, String> properties = new HashMap<>(runProperties);
        properties.put("felix.fileinstall.dir", home.resolve("etc") + "," + home.resolve("deploy"));
        properties.put("felix.fileinstall.poll", "1000");
        properties.put("felix.fileinstall.noInitialDelay", "true");
        properties.put("felix.fileinstall.start.level", String.valueOf(FelixRuntime.BUNDLE_FOLDERS.size()));
        properties.put("felix.fileinstall.log.level", "2"); // warnings and errors
        // never write configurations changed at run time back into etc/: the files are the operator's
        properties.put("felix.fileinstall.enableConfigSave", "false");
        return properties;
    }

    /** Other commands take etc/ and deploy/ as they are at start; File Install gets an empty folder. */
    private static Map<String, String> notWatching(Path storage) {
        return Map.of("felix.fileinstall.dir", storage.resolve("unwatched").toString());
    }

    private static void deleteRecursively(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // a left-over temporary directory is harmless
        }
    }
}
