package dev.ringmaster.launcher;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The flags of {@code ringmaster run}, as framework properties. The configuration files in
 * {@code etc/} refer to them as {@code ${ringmaster.run.*}} (File Install substitutes framework
 * properties), which gives the files the flags' defaults; the flags actually given are listed in
 * {@value #GIVEN}, and the run-flags bundle puts their values over whatever the files say.
 */
final class RunOptions {

    static final String USAGE = """
            usage: ringmaster run [--kubeconfig FILE] [--namespace NS] [--tls-dir DIR]
                                  [--webhook-url URL [--webhook-ca FILE]] [--default-strategy NAME] [--shell]

            Runs the sharder and the webhook until SIGTERM; configuration in etc/ (a flag given wins over it),
            plug-ins in deploy/.
              --kubeconfig FILE        kubeconfig of the cluster (default: in-cluster, else $KUBECONFIG or ~/.kube/config)
              --namespace NS           the sharder's namespace: leader election and webhook Service (default: sharding-system)
              --tls-dir DIR            directory with the webhook's tls.crt and tls.key (default: /etc/ringmaster/tls)
              --webhook-url URL        webhook configurations call this URL instead of the in-cluster Service
              --webhook-ca FILE        PEM CA bundle the API server verifies --webhook-url with
              --default-strategy NAME  partitioning strategy of rings that name none (default: consistent-hash)
              --shell                  a Gogo shell on this terminal (ring:list, ring:shards, ring:explain,
                                       ring:strategies); end of input stops ringmaster""";

    /** Prefix of the framework properties the flags set. */
    static final String PREFIX = "ringmaster.run.";
    /** Set to "true" by --shell. */
    static final String SHELL = PREFIX + "shell";
    /** The names (after {@value #PREFIX}) of the flags given on the command line, comma-separated. */
    static final String GIVEN = PREFIX + "given";

    private RunOptions() {
    }

    /** The framework properties of {@code run} without flags: every default, none given. */
    static Map<String, String> defaults() {
        return properties(defaultValues(), Set.of());
    }

    /**
     * @return the framework properties for these flags, every one set (to its default when not given)
     * @throws UsageException for an unknown flag, a missing value or a file that cannot be read
     */
    static Map<String, String> parse(List<String> args) throws UsageException {
        Map<String, String> values = defaultValues();
        Set<String> given = new LinkedHashSet<>();
        for (int i = 0; i < args.size(); i++) {
            String flag = args.get(i);
            if (flag.equals("--shell")) {
                values.put("shell", "true");
                given.add("shell");
                continue;
            }
            String key = switch (flag) {
                case "--kubeconfig" -> "kubeconfig";
                case "--namespace" -> "namespace";
                case "--tls-dir" -> "tlsDir";
                case "--webhook-url" -> "webhookUrl";
                case "--webhook-ca" -> "webhookCaBundleFile";
                case "--default-strategy" -> "defaultStrategy";
                default -> throw new UsageException("unknown option '" + flag + "'");
            };
            if (i + 1 >= args.size() || args.get(i + 1).startsWith("--")) {
                throw new UsageException(flag + " needs a value");
            }
            values.put(key, args.get(++i));
            given.add(key);
        }
        readable("--kubeconfig", values.get("kubeconfig"));
        readable("--webhook-ca", values.get("webhookCaBundleFile"));
        if (!values.get("webhookUrl").isEmpty()) {
            if (!values.get("webhookUrl").startsWith("https://")) {
                throw new UsageException("--webhook-url must be an https:// URL, not " + values.get("webhookUrl"));
            }
            values.put("webhookMode", "url");
            given.add("webhookMode");
        } else if (!values.get("webhookCaBundleFile").isEmpty()) {
            throw new UsageException("--webhook-ca is only used with --webhook-url");
        }
        return properties(values, given);
    }

    private static Map<String, String> defaultValues() {
        Map<String, String> values = new LinkedHashMap<>();
        values.put("kubeconfig", "");
        values.put("namespace", "sharding-system");
        values.put("tlsDir", "/etc/ringmaster/tls");
        values.put("webhookMode", "service");
        values.put("webhookUrl", "");
        values.put("webhookCaBundleFile", "");
        values.put("defaultStrategy", "consistent-hash");
        values.put("shell", "false");
        return values;
    }

    private static Map<String, String> properties(Map<String, String> values, Set<String> given) {
        Map<String, String> properties = new LinkedHashMap<>();
        values.forEach((key, value) -> properties.put(PREFIX + key, value));
        properties.put(GIVEN, String.join(",", given));
        return properties;
    }

    private static void readable(String flag, String file) throws UsageException {
        if (!file.isEmpty() && !Files.isReadable(Path.of(file))) {
            throw new UsageException(flag + " " + file + ": no such readable file");
        }
    }

    /** Bad flags, said in one line. */
    static final class UsageException extends Exception {
        UsageException(String message) {
            super(message);
        }
    }
}
