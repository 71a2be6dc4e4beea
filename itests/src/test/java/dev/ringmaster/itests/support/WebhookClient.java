package dev.ringmaster.itests.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** What the API server does with a webhook, with the JDK alone (it runs in the probe, too). */
public final class WebhookClient {

    private WebhookClient() {
    }

    /** HTTP/1.1 over TLS, trusting only the CA of this PEM file. */
    public static HttpClient trusting(Path caPem) {
        try (InputStream in = Files.newInputStream(caPem)) {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
            TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trustManagers.init(trust);
            SSLContext tls = SSLContext.getInstance("TLS");
            tls.init(null, trustManagers.getTrustManagers(), null);
            return HttpClient.newBuilder().sslContext(tls).version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(5)).build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new AssertionError(e);
        }
    }

    /** POSTs an AdmissionReview to {@code https://127.0.0.1:port/path}; I/O failures are thrown. */
    public static HttpResponse<String> post(HttpClient client, int port, String path, String review) throws IOException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + path))
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofString(review)).build();
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** An AdmissionReview of the CREATE of a ConfigMap with this name in {@code namespace}. */
    public static String createConfigMap(String uid, String namespace, String name) {
        return """
                {"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"%s",
                 "kind":{"group":"","version":"v1","kind":"ConfigMap"},
                 "resource":{"group":"","version":"v1","resource":"configmaps"},
                 "name":"%s","namespace":"%s","operation":"CREATE","userInfo":{"username":"tester"},
                 "object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"%s","namespace":"%s"}}}}
                """.formatted(uid, name, namespace, name, namespace);
    }
}
