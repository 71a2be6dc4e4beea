package dev.ringmaster.sandbox;

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
}
