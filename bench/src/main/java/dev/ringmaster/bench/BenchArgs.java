package dev.ringmaster.bench;

import dev.ringmaster.flags.Flags;
import dev.ringmaster.flags.Given;
import dev.ringmaster.flags.UsageException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The command line of a bench main, in the syntax of every Ringmaster command ({@link Flags}): each flag
 * takes a value, {@code --name value} or {@code --name=value}. {@code --help} prints the flags and exits
 * 0; a usage error is one line naming the flag and exits 2. What the flags mean and their defaults: the
 * main's Javadoc and docs/performance.md.
 */
public final class BenchArgs {

    private final String command;
    private final Given given;

    private BenchArgs(String command, Given given) {
        this.command = command;
        this.given = given;
    }

    /**
     * The arguments of {@code main}, which takes the flags {@code --<name>} for these names; exits the JVM
     * for {@code --help} or a usage error.
     */
    public static BenchArgs parse(Class<?> main, String[] args, String... names) {
        String command = main.getSimpleName();
        List<String> flags = Arrays.stream(names).map(name -> "--" + name).toList();
        if (Flags.wantsHelp(List.of(args))) {
            System.out.println("usage: java -cp bench/target/benchmarks.jar " + main.getName() + " "
                    + flags.stream().map(flag -> "[" + flag + " VALUE]").collect(Collectors.joining(" "))
                    + System.lineSeparator() + "(docs/performance.md says what they do)");
            System.exit(0);
        }
        try {
            return new BenchArgs(command, Flags.of().valued(flags.toArray(String[]::new)).parse(List.of(args)));
        } catch (UsageException e) {
            throw exit(command, e);
        }
    }

    public String string(String name, String fallback) {
        return given.value("--" + name).orElse(fallback);
    }

    /** A whole number, which may be written with {@code _} between its digits. */
    public int integer(String name, int fallback) {
        return number(name, fallback, value -> Integer.parseInt(value.replace("_", "")));
    }

    public double decimal(String name, double fallback) {
        return number(name, fallback, Double::parseDouble);
    }

    public Duration millis(String name, long fallback) {
        return Duration.ofMillis(number(name, fallback, Long::parseLong));
    }

    /** The value, which must be one of {@code allowed}; {@code allowed[0]} when not given. */
    public String oneOf(String name, String... allowed) {
        String value = string(name, allowed[0]);
        if (!Arrays.asList(allowed).contains(value)) {
            throw usageError("--" + name + " must be " + String.join(" or ", allowed) + ", not '" + value + "'");
        }
        return value;
    }

    public String required(String name) {
        return given.value("--" + name).orElseThrow(() -> usageError("--" + name + " is required"));
    }

    /** Reports a usage error, such as flags that do not go together, and exits 2. */
    public RuntimeException usageError(String message) {
        return exit(command, new UsageException(message));
    }

    private <T> T number(String name, T fallback, Function<String, T> parse) {
        String value = string(name, null);
        try {
            return value == null ? fallback : parse.apply(value);
        } catch (NumberFormatException e) {
            throw usageError("--" + name + " must be a number, not '" + value + "'");
        }
    }

    private static RuntimeException exit(String command, UsageException e) {
        System.exit(e.report(command, System.err));
        return new IllegalStateException("exited", e);
    }
}
