package dev.ringmaster.itests.support;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A scrape of {@code /metrics} (Prometheus text format) as Prometheus stores it: one sample per line, and a
 * label with an empty value dropped, since Prometheus treats it as absent.
 */
public record Exposition(List<Sample> samples) {

    /** One series' value: its name, its labels with a value, the value. */
    public record Sample(String name, Map<String, String> labels, double value) {
    }

    private static final Pattern LINE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})? (\\S+)");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");
    /** Metric names of our PromQL: ours, the reference's, the JVM's and Prometheus's own {@code up}. */
    private static final Pattern METRIC = Pattern.compile("\\b((?:controller_sharding|ringmaster|jvm|process)_[a-zA-Z0-9_]+|up)\\b");
    /** Label names a PromQL expression groups or matches by. */
    private static final Pattern GROUPING = Pattern.compile("\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\(([^)]*)\\)");
    private static final Pattern MATCHER = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(?:=~|!~|!=|=)\\s*\"");
    /** Labels Prometheus adds to every series it scrapes (the ServiceMonitor's target labels). */
    public static final Set<String> TARGET_LABELS = Set.of("instance", "job", "namespace", "pod", "service", "endpoint",
            "container");

    public static Exposition parse(String text) {
        List<Sample> samples = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            Matcher matcher = LINE.matcher(line.strip());
            if (!matcher.matches()) {
                throw new IllegalArgumentException("not a sample line: " + line);
            }
            Map<String, String> labels = new LinkedHashMap<>();
            if (matcher.group(2) != null) {
                Matcher label = LABEL.matcher(matcher.group(2));
                while (label.find()) {
                    if (!label.group(2).isEmpty()) {
                        labels.put(label.group(1), label.group(2));
                    }
                }
            }
            samples.add(new Sample(matcher.group(1), labels, Double.parseDouble(matcher.group(3))));
        }
        return new Exposition(List.copyOf(samples));
    }

    /** The samples of a metric (an exposition name: {@code _total}, {@code _bucket} included). */
    public List<Sample> named(String name) {
        return samples.stream().filter(sample -> sample.name().equals(name)).toList();
    }

    /** The one sample of the metric with exactly these labels (empty values: absent, as in Prometheus). */
    public Optional<Sample> find(String name, Map<String, String> labels) {
        Map<String, String> stored = labels.entrySet().stream().filter(entry -> !entry.getValue().isEmpty())
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        return named(name).stream().filter(sample -> sample.labels().equals(stored)).findFirst();
    }

    public Set<String> names() {
        return samples.stream().map(Sample::name).collect(Collectors.toCollection(TreeSet::new));
    }

    /**
     * What a PromQL expression asks for that this scrape does not have: metric names not exported, and
     * label names (grouped or matched by) that none of its metrics carries and Prometheus does not add.
     */
    public List<String> missingFor(String expression) {
        List<String> missing = new ArrayList<>();
        Set<String> metrics = new TreeSet<>();
        Matcher metric = METRIC.matcher(expression);
        while (metric.find()) {
            metrics.add(metric.group(1));
        }
        if (metrics.isEmpty()) {
            missing.add("no metric in " + expression);
        }
        Set<String> labels = new TreeSet<>();
        for (String name : metrics) {
            if (name.equals("up")) {
                continue; // Prometheus's own
            }
            List<Sample> found = named(name);
            if (found.isEmpty()) {
                missing.add("metric " + name);
            }
            found.forEach(sample -> labels.addAll(sample.labels().keySet()));
        }
        Matcher grouping = GROUPING.matcher(expression);
        Set<String> used = new TreeSet<>();
        while (grouping.find()) {
            for (String label : grouping.group(1).split(",")) {
                if (!label.isBlank()) {
                    used.add(label.strip());
                }
            }
        }
        Matcher matcher = MATCHER.matcher(expression);
        while (matcher.find()) {
            used.add(matcher.group(1));
        }
        for (String label : used) {
            if (!labels.contains(label) && !TARGET_LABELS.contains(label) && !metrics.equals(Set.of("up"))) {
                missing.add("label " + label + " on " + metrics);
            }
        }
        return missing;
    }
}
