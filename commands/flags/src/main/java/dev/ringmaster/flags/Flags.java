package dev.ringmaster.flags;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The flags one command takes, and the syntax every command shares: a valued flag is written
 * {@code --x value} or {@code --x=value}, a switch {@code --x}, a flag with an optional value {@code --x}
 * or {@code --x=value}; a flag is given once unless it is repeatable, or the command lets the last one
 * given win; {@code --help} or {@code -h} anywhere asks for the usage. Immutable: each method that
 * changes the flags returns a new instance.
 */
public final class Flags {

    /** The exit code of a usage error. */
    public static final int USAGE_ERROR = 2;

    private enum Kind { VALUED, REPEATABLE, SWITCH, OPTIONAL_VALUE }

    private final Map<String, Kind> kinds;
    private final boolean lastGivenWins;

    private Flags(Map<String, Kind> kinds, boolean lastGivenWins) {
        this.kinds = kinds;
        this.lastGivenWins = lastGivenWins;
    }

    /** No flags yet. */
    public static Flags of() {
        return new Flags(Map.of(), false);
    }

    /**
     * A flag given again replaces its value instead of being an error, so that a command line can be
     * extended by appending flags (as kustomize patches append to {@code ringmaster run}'s).
     */
    public Flags lastGivenWins() {
        return new Flags(kinds, true);
    }

    /** These flags take a value: {@code --x value} or {@code --x=value}. */
    public Flags valued(String... names) {
        return with(Kind.VALUED, names);
    }

    /** These flags take a value and may be given more than once. */
    public Flags repeatable(String... names) {
        return with(Kind.REPEATABLE, names);
    }

    /** These flags take no value. */
    public Flags switches(String... names) {
        return with(Kind.SWITCH, names);
    }

    /** These flags take a value only after {@code =}: {@code --x} or {@code --x=value}. */
    public Flags optionalValue(String... names) {
        return with(Kind.OPTIONAL_VALUE, names);
    }

    private Flags with(Kind kind, String... names) {
        Map<String, Kind> more = new LinkedHashMap<>(kinds);
        for (String name : names) {
            if (!name.startsWith("--") || name.contains("=") || more.put(name, kind) != null) {
                throw new IllegalArgumentException("not a new flag name: " + name);
            }
        }
        return new Flags(more, lastGivenWins);
    }

    /** Whether the arguments ask for the usage: {@code --help} or {@code -h} anywhere. */
    public static boolean wantsHelp(List<String> args) {
        return args.contains("--help") || args.contains("-h");
    }

    /**
     * @return the flags given and their values
     * @throws UsageException for an argument that is not a flag, an unknown flag, a missing or empty
     *     value, a value given to a switch, or a flag given twice that is not repeatable (unless the
     *     last one given wins)
     */
    public Given parse(List<String> args) throws UsageException {
        Map<String, List<String>> given = new LinkedHashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (!arg.startsWith("--")) {
                throw new UsageException("unexpected argument '" + arg + "'");
            }
            int equals = arg.indexOf('=');
            String flag = equals < 0 ? arg : arg.substring(0, equals);
            String inline = equals < 0 ? null : arg.substring(equals + 1);
            Kind kind = kinds.get(flag);
            if (kind == null) {
                throw new UsageException("unknown flag " + flag);
            }
            boolean again = given.containsKey(flag) && kind != Kind.REPEATABLE;
            if (again && !lastGivenWins) {
                throw new UsageException(flag + " is given twice");
            }
            List<String> values = given.computeIfAbsent(flag, name -> new ArrayList<>());
            if (again) {
                values.clear();
            }
            switch (kind) {
                case SWITCH -> {
                    if (inline != null) {
                        throw new UsageException(flag + " takes no value");
                    }
                }
                case OPTIONAL_VALUE -> {
                    if (inline != null) {
                        values.add(nonEmpty(flag, inline));
                    }
                }
                default -> {
                    // a next argument that is a flag is never taken as the value: --x=--y gives one that starts so
                    if (inline == null && (i + 1 == args.size() || args.get(i + 1).startsWith("--"))) {
                        throw new UsageException(flag + " needs a value");
                    }
                    values.add(nonEmpty(flag, inline != null ? inline : args.get(++i)));
                }
            }
        }
        return new Given(given);
    }

    private static String nonEmpty(String flag, String value) throws UsageException {
        if (value.isBlank()) {
            throw new UsageException(flag + " needs a value");
        }
        return value;
    }

    /**
     * @param what  the flag, or what of it the value is, for the message
     * @throws UsageException when the value is not a whole number from {@code min} to {@code max}
     */
    public static int wholeNumber(String what, String value, int min, int max) throws UsageException {
        try {
            int number = Integer.parseInt(value);
            if (number >= min && number <= max) {
                return number;
            }
        } catch (NumberFormatException e) {
            // said below, with the numbers allowed
        }
        throw new UsageException(what + " must be a whole number from " + min + " to " + max + ", not '" + value + "'");
    }
}
