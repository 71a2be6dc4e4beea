package dev.ringmaster.launcher;

import dev.ringmaster.launcher.command.Command;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
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
        Path storage;
        try {
            storage = Files.createTempDirectory("ringmaster-felix-");
        } catch (IOException e) {
            err.println("ringmaster: cannot create the framework's storage directory: " + e.getMessage());
            return 1;
        }
        try (FelixRuntime runtime = FelixRuntime.start(home, storage, frameworkProperties(storage), err)) {
            List<String> commandArgs = Arrays.asList(args).subList(1, args.length);
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

    private static Map<String, String> frameworkProperties(Path storage) {
        return Map.of(
                "org.osgi.framework.storage", storage.toString(),
                "org.osgi.framework.storage.clean", "onFirstInit",
                "org.osgi.framework.system.packages.extra",
                Command.class.getPackageName() + ";version=1.0.0",
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
