package dev.ringmaster.clustertests.support;

import java.util.List;

/** What a failure message shows of the cluster: pods, recent events, the last lines of each pod's log. */
public final class Diagnostics {

    private Diagnostics() {
    }

    /** Pods (wide), events, and the tail of every pod's log (and of its previous container) of a namespace. */
    public static String namespace(NodeCluster cluster, String namespace) {
        StringBuilder text = new StringBuilder("--- namespace ").append(namespace).append(" ---\n");
        text.append(cluster.kubectl("-n", namespace, "get", "pods", "-o", "wide").out());
        List<String> events = cluster.kubectl("-n", namespace, "get", "events", "--sort-by=.lastTimestamp").out().lines().toList();
        events.subList(Math.max(0, events.size() - 40), events.size()).forEach(line -> text.append(line).append('\n'));
        for (String pod : cluster.kubectl("-n", namespace, "get", "pods", "-o", "name").out().lines().toList()) {
            text.append("--- ").append(pod).append(" (last 30 lines) ---\n")
                    .append(cluster.kubectl("-n", namespace, "logs", pod, "--all-containers", "--tail=30").out());
            String previous = cluster.kubectl("-n", namespace, "logs", pod, "--all-containers", "--previous", "--tail=30").out();
            if (!previous.isBlank()) {
                text.append("--- ").append(pod).append(" previous container (last 30 lines) ---\n").append(previous);
            }
        }
        return text.toString();
    }
}
