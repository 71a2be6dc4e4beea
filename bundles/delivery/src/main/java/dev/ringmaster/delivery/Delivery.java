package dev.ringmaster.delivery;

import io.fabric8.kubernetes.api.model.ConfigMap;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;

/**
 * What the delivery ConfigMaps ask for, read from them as they are now (docs/operating.md): each
 * {@code data} key {@code <pid>.cfg} (Java properties) sets those keys of that configuration, and each
 * {@code binaryData} key {@code <name>.jar} is a bundle (a {@code data} key too, though text is never
 * one). Other keys are ignored. Immutable.
 *
 * <p>Several ConfigMaps may set keys of one PID (a kustomize Component adds its own ConfigMap, say);
 * a key set by two is taken from the first by name and refused in the others, so that every replica
 * picks the same value.
 *
 * @param configurations properties by PID
 * @param jars           the bundles, by ConfigMap and key
 * @param refusals       entries not applied, and why
 */
record Delivery(Map<String, Map<String, String>> configurations, List<Jar> jars, List<Refusal> refusals) {

    static final String CONFIGURATION_SUFFIX = ".cfg";
    static final String BUNDLE_SUFFIX = ".jar";

    Delivery {
        configurations = Map.copyOf(configurations);
        jars = List.copyOf(jars);
        refusals = List.copyOf(refusals);
    }

    /** One entry of one ConfigMap: {@code namespace/name} and the key. */
    record Source(String configMap, String key) {
        @Override
        public String toString() {
            return "ConfigMap " + configMap + " key " + key;
        }
    }

    /** A bundle to run, with the SHA-256 of its bytes in hex. */
    record Jar(Source source, byte[] bytes, String sha256) {

        static Jar of(Source source, byte[] bytes) {
            return new Jar(source, bytes, Delivery.sha256(bytes));
        }

        /** The bundle location: one per ConfigMap key, so an update of the key updates that bundle. */
        String location() {
            return LOCATION_PREFIX + source.configMap() + "/" + source.key();
        }
    }

    /** An entry that is not applied. */
    record Refusal(Source source, String reason) {
    }

    /** The prefix of the locations of delivered bundles: what is not delivered is left alone. */
    static final String LOCATION_PREFIX = "ringmaster:configmap/";

    /**
     * @param configMaps the delivery ConfigMaps, in any order
     * @param ownPid     the PID of the delivery itself, which is never taken from a ConfigMap: whoever
     *                   writes ConfigMaps must not widen the bundle allow-list
     */
    static Delivery of(List<ConfigMap> configMaps, String ownPid) {
        Map<String, Map<String, String>> configurations = new TreeMap<>();
        Map<String, Source> keySources = new LinkedHashMap<>();
        List<Jar> jars = new ArrayList<>();
        List<Refusal> refusals = new ArrayList<>();
        List<ConfigMap> byName = configMaps.stream()
                .sorted(Comparator.comparing(Delivery::nameOf)).toList();
        for (ConfigMap configMap : byName) {
            String name = nameOf(configMap);
            new TreeMap<>(Objects.requireNonNullElse(configMap.getData(), Map.<String, String>of())).forEach((key, text) -> {
                if (key.endsWith(BUNDLE_SUFFIX)) {
                    // kubectl puts a file that is valid UTF-8 into data: no bundle, but say so
                    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
                    jars.add(Jar.of(new Source(name, key), bytes));
                    return;
                }
                if (!key.endsWith(CONFIGURATION_SUFFIX)) {
                    return;
                }
                Source source = new Source(name, key);
                String pid = key.substring(0, key.length() - CONFIGURATION_SUFFIX.length());
                if (pid.equals(ownPid)) {
                    refusals.add(new Refusal(source, "the delivery's own configuration " + ownPid
                            + " comes only from the sharder's etc/ (its bundle allow-list must not be widened"
                            + " by whoever writes ConfigMaps)"));
                    return;
                }
                Map<String, String> values;
                try {
                    values = properties(text);
                } catch (IOException | IllegalArgumentException e) {
                    refusals.add(new Refusal(source, "not a properties file: " + e.getMessage()));
                    return;
                }
                Map<String, String> merged = configurations.computeIfAbsent(pid, any -> new TreeMap<>());
                values.forEach((property, value) -> {
                    Source earlier = keySources.putIfAbsent(pid + "\n" + property, source);
                    if (earlier == null) {
                        merged.put(property, value);
                    } else {
                        refusals.add(new Refusal(source, property + " of " + pid + " is already set by " + earlier));
                    }
                });
            });
            new TreeMap<>(Objects.requireNonNullElse(configMap.getBinaryData(), Map.<String, String>of())).forEach((key, base64) -> {
                if (!key.endsWith(BUNDLE_SUFFIX)) {
                    return;
                }
                Source source = new Source(name, key);
                try {
                    byte[] bytes = Base64.getDecoder().decode(base64);
                    jars.add(Jar.of(source, bytes));
                } catch (IllegalArgumentException e) {
                    refusals.add(new Refusal(source, "binaryData is not base64: " + e.getMessage()));
                }
            });
        }
        configurations.values().removeIf(Map::isEmpty); // a file of comments sets nothing
        return new Delivery(configurations, jars, refusals);
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    private static Map<String, String> properties(String text) throws IOException {
        Properties properties = new Properties();
        properties.load(new StringReader(text));
        Map<String, String> values = new TreeMap<>();
        properties.stringPropertyNames().forEach(key -> values.put(key, properties.getProperty(key).trim()));
        return values;
    }

    /** {@code namespace/name}, as {@link Source} names a ConfigMap. */
    static String nameOf(ConfigMap configMap) {
        return configMap.getMetadata().getNamespace() + "/" + configMap.getMetadata().getName();
    }
}
