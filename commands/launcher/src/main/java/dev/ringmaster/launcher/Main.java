package dev.ringmaster.launcher;

import dev.ringmaster.flags.Flags;
import dev.ringmaster.flags.UsageException;
import dev.ringmaster.launcher.command.Command;
import dev.ringmaster.launcher.run.RunFlag;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * {@code bin/ringmaster COMMAND [ARGS]}: boots the distribution in Felix and hands the arguments to
 * the command service registered under that word.
 */
public final class Main {

    private static final String USAGE = """
            usage: ringmaster COMMAND [ARGS]

            commands:
              run        the sharder and the webhook, until SIGTERM
              sandbox    the whole system on an embedded API server with example shards, no cluster needed
              simulate   balance and movement of a partitioning strategy for a fleet of shards
            run 'ringmaster COMMAND --help' for a command's options""";

    private final Path home;
    private final PrintStream out;
    private final PrintStream err;

    Main(Path home, PrintStream out, PrintStream err) {
        this.home = home;
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        // logs on stderr, or in the file RINGMASTER_LOG_FILE names (bin/ringmaster passes it as -D)
        LogDefaults.apply();
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
            if (Flags.wantsHelp(commandArgs)) {
                out.println(RunOptions.USAGE);
                return 0;
            }
            try {
                runProperties = RunOptions.parse(commandArgs);
            } catch (UsageException e) {
                return e.report("ringmaster run", err);
            }
        }
        try (Ringmaster ringmaster = serve
                ? Ringmaster.start(home, home.resolve("etc"), runProperties,
                        Boolean.parseBoolean(runProperties.get(RunFlag.SHELL.property())), err)
                : Ringmaster.startOnce(home, err)) {
            if (serve) {
                return serve(ringmaster);
            }
            FelixRuntime runtime = ringmaster.runtime();
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
        }
    }

    /** Runs until the framework stops: on SIGTERM (or Ctrl-C) every bundle is stopped in order first. */
    private int serve(Ringmaster ringmaster) {
        Thread stopOnSignal = new Thread(ringmaster::close, "ringmaster-shutdown");
        Runtime.getRuntime().addShutdownHook(stopOnSignal);
        out.println("ringmaster: running; configuration in " + home.resolve("etc") + ", plug-ins in "
                + home.resolve("deploy") + "; stop with SIGTERM");
        ringmaster.awaitStop();
        return 0;
    }
}
