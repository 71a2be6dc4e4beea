package dev.ringmaster.sandbox;

import dev.ringmaster.ring.ranges.RangeSet;
import java.util.Locale;
import java.util.Map;

/** The shard table of the live view and of the final distribution. */
final class Table {

    private Table() {
    }

    /**
     * One row per shard: name, lease state label, process, objects.
     *
     * @param perShard  objects per shard; its keys are the rows
     * @param states    lease state label per shard
     * @param processes what the shard's process does (running, stopped, killed); {@code -} for a
     *                  shard label value that names no shard of the sandbox
     */
    static String render(Map<String, Integer> perShard, Map<String, String> states, Map<String, String> processes) {
        int width = Math.max("SHARD".length(), perShard.keySet().stream().mapToInt(String::length).max().orElse(0));
        String format = "  %-" + width + "s  %-11s  %-8s  %7s%n";
        StringBuilder table = new StringBuilder(String.format(format, "SHARD", "LEASE STATE", "PROCESS", "OBJECTS"));
        perShard.forEach((shard, count) -> table.append(String.format(format, shard, states.getOrDefault(shard, "-"),
                processes.getOrDefault(shard, "-"), count)));
        return table.toString();
    }

    /** {@link #render(Map, Map, Map)} with range mode's columns: how many ranges each shard serves, and their share. */
    static String render(Map<String, Integer> perShard, Map<String, String> states, Map<String, String> processes,
            Map<String, RangeSet> served) {
        return render(perShard, states, processes, served, null);
    }

    /**
     * {@link #render(Map, Map, Map, Map)} with, unless {@code busy} is null, a column of the busy time (s/s)
     * each shard reported ({@code -} for none).
     */
    static String render(Map<String, Integer> perShard, Map<String, String> states, Map<String, String> processes,
            Map<String, RangeSet> served, Map<String, Double> busy) {
        int width = Math.max("SHARD".length(), perShard.keySet().stream().mapToInt(String::length).max().orElse(0));
        String format = "  %-" + width + "s  %-11s  %-8s  %7s  %6s  %6s" + (busy == null ? "%s" : "  %10s") + "%n";
        StringBuilder table = new StringBuilder(String.format(format, "SHARD", "LEASE STATE", "PROCESS", "OBJECTS",
                "RANGES", "SHARE", busy == null ? "" : "BUSY (s/s)"));
        perShard.forEach((shard, count) -> {
            RangeSet ranges = served.getOrDefault(shard, RangeSet.EMPTY);
            Double load = busy == null ? null : busy.get(shard);
            table.append(String.format(Locale.ROOT, format, shard, states.getOrDefault(shard, "-"),
                    processes.getOrDefault(shard, "-"), count, ranges.ranges().size(),
                    String.format(Locale.ROOT, "%.1f%%", 100 * ranges.fraction()),
                    busy == null ? "" : load == null ? "-" : String.format(Locale.ROOT, "%.3f", load)));
        });
        return table.toString();
    }
}
