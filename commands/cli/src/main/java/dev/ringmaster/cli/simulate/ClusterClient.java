package dev.ringmaster.cli.simulate;

import dev.ringmaster.flags.UsageException;
import dev.ringmaster.kubernetes.client.KubernetesClients;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.URL;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLException;

/** The client a preview reads the cluster with, and its failures in one line. */
final class ClusterClient {

    /** A request that takes longer has failed: a preview is a person waiting. */
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    private ClusterClient() {
    }

    /**
     * A client for the kubeconfig, else as kubectl finds the cluster ($KUBECONFIG, ~/.kube/config,
     * in-cluster), that does not retry: a failure is reported at once. No request is made.
     *
     * @throws UsageException if the kubeconfig cannot be read
     */
    static KubernetesClient open(Optional<Path> kubeconfig) throws UsageException {
        Config config;
        if (kubeconfig.isPresent()) {
            Path file = kubeconfig.get();
            if (!Files.isReadable(file) || Files.isDirectory(file)) {
                throw new UsageException("--kubeconfig " + file + " is not a readable file");
            }
            if (file.toFile().length() == 0) {
                throw new UsageException("--kubeconfig " + file + " is empty");
            }
            try {
                config = Config.fromKubeconfig(file.toFile());
            } catch (RuntimeException e) {
                throw new UsageException("--kubeconfig " + file + " is not a usable kubeconfig: " + oneLine(e));
            }
        } else {
            config = Config.autoConfigure(null);
        }
        return KubernetesClients.build(new ConfigBuilder(config)
                .withRequestRetryBackoffLimit(0)
                .withConnectionTimeout((int) TIMEOUT.toMillis())
                .withRequestTimeout((int) TIMEOUT.toMillis())
                .build(), http -> { });
    }

    /** What went wrong talking to the API server at {@code masterUrl}, in one line. */
    static String describe(KubernetesClientException e, URL masterUrl) {
        String server = "the API server at " + masterUrl;
        if (e.getCode() > 0) {
            String reason = e.getStatus() != null && e.getStatus().getMessage() != null
                    ? e.getStatus().getMessage() : oneLine(e);
            return server + " answered HTTP " + e.getCode() + switch (e.getCode()) {
                case 401 -> " (unauthorized: check the kubeconfig's credentials): ";
                case 403 -> " (forbidden: these credentials may not read what the preview needs): ";
                default -> ": ";
            } + reason;
        }
        return "cannot reach " + server + ": " + oneLine(e);
    }

    /**
     * Why a request failed, on one line: a refused connection, an unknown host, a timeout or a TLS
     * failure anywhere in the causes by name, else the innermost cause's message (its type if it has none).
     */
    private static String oneLine(Throwable failure) {
        List<Throwable> causes = new ArrayList<>();
        for (Throwable cause = failure; cause != null && !causes.contains(cause); cause = cause.getCause()) {
            causes.add(cause);
        }
        for (Throwable cause : causes) {
            String named = cause instanceof ConnectException ? "connection refused"
                    : cause instanceof UnknownHostException || cause instanceof UnresolvedAddressException ? "unknown host"
                    : cause instanceof HttpTimeoutException || cause instanceof SocketTimeoutException ? "timed out"
                    : cause instanceof SSLException ? "TLS failed"
                    : null;
            if (named != null) {
                return cause.getMessage() == null ? named : named + " (" + flat(cause.getMessage()) + ")";
            }
        }
        Throwable innermost = causes.get(causes.size() - 1);
        return innermost.getMessage() == null ? innermost.getClass().getSimpleName() : flat(innermost.getMessage());
    }

    private static String flat(String message) {
        return message.replaceAll("\\s+", " ").strip();
    }
}
