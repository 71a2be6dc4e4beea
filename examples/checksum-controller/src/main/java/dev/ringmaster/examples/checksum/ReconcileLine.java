package dev.ringmaster.examples.checksum;

import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the controller prints after each reconcile, one line each:
 * {@code reconcile shard=S object=NS/NAME start=MS end=MS}, with the start and end of the reconcile
 * in epoch milliseconds of the controller's clock. Collected from every shard, the lines prove (or
 * refute) that no object was reconciled by two shards at overlapping times.
 *
 * @param shard     the shard that reconciled
 * @param namespace the ConfigMap's namespace
 * @param name      the ConfigMap's name
 * @param start     epoch milliseconds when the reconcile began
 * @param end       epoch milliseconds when it ended (after its last write)
 */
public record ReconcileLine(String shard, String namespace, String name, long start, long end) {

    private static final Pattern LINE =
            Pattern.compile("reconcile shard=(\\S+) object=([^/\\s]+)/(\\S+) start=(\\d+) end=(\\d+)");

    public ReconcileLine {
        Objects.requireNonNull(shard, "shard");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
        if (end < start) {
            throw new IllegalArgumentException("a reconcile cannot end (" + end + ") before it starts (" + start + ")");
        }
    }

    /** {@code NS/NAME}. */
    public String object() {
        return namespace + "/" + name;
    }

    /**
     * Whether both lines are about the same object and their closed intervals {@code [start, end]}
     * share at least one millisecond.
     */
    public boolean overlaps(ReconcileLine other) {
        return object().equals(other.object()) && start <= other.end && other.start <= end;
    }

    /** The line as printed: {@code reconcile shard=S object=NS/NAME start=MS end=MS}. */
    @Override
    public String toString() {
        return "reconcile shard=" + shard + " object=" + object() + " start=" + start + " end=" + end;
    }

    /** The reconcile line {@code line} (surrounding whitespace ignored); empty for any other line. */
    public static Optional<ReconcileLine> parse(String line) {
        Matcher matcher = LINE.matcher(line.strip());
        if (!matcher.matches()) {
            return Optional.empty();
        }
        return Optional.of(new ReconcileLine(matcher.group(1), matcher.group(2), matcher.group(3),
                Long.parseLong(matcher.group(4)), Long.parseLong(matcher.group(5))));
    }
}
