package dev.ringmaster.sharder.ringcontrol;

import dev.ringmaster.ring.RingContract;
import dev.ringmaster.sharder.model.RingKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The {@code clientConfig} of every ring's webhook configuration, from the sharder's configuration
 * (the HTTPS server itself is the webhook bundle's, with settings of its own): how the API server
 * reaches the sharder's webhook, either a Service in the cluster or a URL (a sharder running outside
 * the cluster), and how it trusts the sharder's certificate: a CA bundle read from a PEM file, the
 * sharder's own CA ({@code webhookCertificates = self-signed}), cert-manager's CA injection from a
 * Certificate, or none of them (the API server's system trust roots, for a URL with a public
 * certificate).
 *
 * @param service                the Service in front of the sharder, or {@code null} when {@code url} is set
 * @param url                    https base URL of the sharder (the webhook path is appended), or
 *                               {@code null} when {@code service} is set
 * @param caBundleFile           PEM file with the CA that signed the sharder's certificate, or {@code null}
 * @param certManagerCertificate {@code <namespace>/<certificate>} whose CA cert-manager injects, or {@code null}
 * @param caBundleSource         the sharder's own CA bundle, as it is at each moment, or {@code null}
 */
public record WebhookClientSettings(ServiceEndpoint service, String url, Path caBundleFile,
        String certManagerCertificate, CaBundleSource caBundleSource) {

    /**
     * The CA bundle the sharder keeps itself (its self-signed CA), read at each use; empty while it is
     * not known yet, when whatever the configurations hold stays.
     */
    @FunctionalInterface
    public interface CaBundleSource {
        Optional<byte[]> current();
    }

    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    private static final Pattern DNS_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final String PEM_CERTIFICATE = "-----BEGIN CERTIFICATE-----";

    // After the patterns: building it runs ServiceEndpoint's checks, which use them.
    /** The Service the sharder's own manifests create. */
    public static final ServiceEndpoint DEFAULT_SERVICE =
            new ServiceEndpoint(RingContract.SYSTEM_NAMESPACE, "sharder", 443);

    /**
     * The Service in front of the sharder, as a webhook's {@code clientConfig.service} names it.
     *
     * @param namespace the Service's namespace
     * @param name      the Service's name
     * @param port      the Service port serving the webhook over HTTPS
     */
    public record ServiceEndpoint(String namespace, String name, int port) {

        public ServiceEndpoint {
            requireDnsLabel("webhook service namespace", namespace);
            requireDnsLabel("webhook service name", name);
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("webhook service port " + port + " is not between 1 and 65535");
            }
        }
    }

    public WebhookClientSettings {
        if (service == null && url == null) {
            throw new IllegalArgumentException("configure the webhook client as a service or as a URL");
        }
        if (service != null && url != null) {
            throw new IllegalArgumentException("configure the webhook client either as a service or as a URL, not both");
        }
        if (url != null) {
            requireHttpsUrl(url);
        }
        if ((caBundleFile != null ? 1 : 0) + (certManagerCertificate != null ? 1 : 0) + (caBundleSource != null ? 1 : 0) > 1) {
            throw new IllegalArgumentException("configure one source of the webhook's CA: a CA bundle file, a "
                    + "cert-manager certificate or the sharder's own CA, not several");
        }
        if (caBundleFile != null) {
            readPem(caBundleFile);
        }
        if (certManagerCertificate != null) {
            requireNamespacedName(certManagerCertificate);
        }
    }

    public WebhookClientSettings(ServiceEndpoint service, String url, Path caBundleFile, String certManagerCertificate) {
        this(service, url, caBundleFile, certManagerCertificate, null);
    }

    /** The defaults: the Service {@code sharding-system/sharder:443}, no CA bundle. */
    public static WebhookClientSettings defaults() {
        return service(DEFAULT_SERVICE);
    }

    /** Reach the sharder through a Service. */
    public static WebhookClientSettings service(ServiceEndpoint service) {
        return new WebhookClientSettings(Objects.requireNonNull(service, "service"), null, null, null);
    }

    /** Reach the sharder at an https base URL. */
    public static WebhookClientSettings url(String baseUrl) {
        return new WebhookClientSettings(null, Objects.requireNonNull(baseUrl, "baseUrl"), null, null);
    }

    /** The same client, trusting the CA in a PEM file (read again whenever the configuration is built). */
    public WebhookClientSettings withCaBundleFile(Path file) {
        return new WebhookClientSettings(service, url, file, null, null);
    }

    /** The same client, with the CA injected by cert-manager from {@code <namespace>/<certificate>}. */
    public WebhookClientSettings withCertManagerCertificate(String namespaceAndName) {
        return new WebhookClientSettings(service, url, null, namespaceAndName, null);
    }

    /** The same client, trusting the sharder's own CA (self-signed mode), whatever it is at each use. */
    public WebhookClientSettings withCaBundleSource(CaBundleSource source) {
        return new WebhookClientSettings(service, url, null, null, Objects.requireNonNull(source, "source"));
    }

    /** Whether the sharder writes the CA bundle itself; otherwise it leaves whatever is there alone. */
    public boolean ownsCaBundle() {
        return caBundleFile != null || caBundleSource != null;
    }

    /**
     * The CA bundle's PEM bytes, read now so a rotated file or a renewed CA is picked up; {@code null}
     * without a file or source, and while the source does not know it yet.
     */
    public byte[] readCaBundle() {
        if (caBundleSource != null) {
            return caBundleSource.current().orElse(null);
        }
        return caBundleFile == null ? null : readPem(caBundleFile);
    }

    /** The URL of the ring's webhook in URL mode. */
    public String webhookUrl(RingKey ring) {
        String base = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        return base + ring.kind().webhookPath(ring.name());
    }

    private static byte[] readPem(Path file) {
        if (!Files.isReadable(file)) {
            throw new IllegalArgumentException("the webhook CA bundle file " + file + " is not a readable file");
        }
        try {
            byte[] pem = Files.readAllBytes(file);
            if (!new String(pem, StandardCharsets.US_ASCII).contains(PEM_CERTIFICATE)) {
                throw new IllegalArgumentException("the webhook CA bundle file " + file
                        + " holds no PEM certificate (" + PEM_CERTIFICATE + ")");
            }
            return pem;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the webhook CA bundle file " + file, e);
        }
    }

    private static void requireHttpsUrl(String url) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("webhook URL " + url + " is not a URL: " + e.getMessage(), e);
        }
        // The API server calls webhooks over TLS only and rejects user info, queries and fragments.
        if (!"https".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null) {
            throw new IllegalArgumentException("webhook URL " + url + " must be an https URL with a host");
        }
        if (uri.getRawUserInfo() != null || uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw new IllegalArgumentException("webhook URL " + url + " must not have user info, a query or a fragment");
        }
    }

    private static void requireNamespacedName(String value) {
        String[] parts = value.split("/", -1);
        if (parts.length != 2 || !DNS_LABEL.matcher(parts[0]).matches() || parts[0].length() > 63
                || !DNS_SUBDOMAIN.matcher(parts[1]).matches() || parts[1].length() > 253) {
            throw new IllegalArgumentException("cert-manager certificate \"" + value
                    + "\" must be <namespace>/<certificate name>");
        }
    }

    private static void requireDnsLabel(String what, String value) {
        if (value == null || value.length() > 63 || !DNS_LABEL.matcher(value).matches()) {
            throw new IllegalArgumentException(what + " \"" + value + "\" must be a lowercase DNS label");
        }
    }
}
