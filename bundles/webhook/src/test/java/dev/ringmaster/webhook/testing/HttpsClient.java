package dev.ringmaster.webhook.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSession;

/** Real HTTPS requests to the server under test, trusting the test CA only, HTTP/1.1 with keep-alive. */
public final class HttpsClient {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** An answer: status, body and the certificate the server presented. */
    public record Answer(int status, String body, HttpResponse<String> response) {

        public JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new UncheckedIOException("not JSON: " + body, e);
            }
        }

        public Optional<String> header(String name) {
            return response.headers().firstValue(name);
        }

        public X509Certificate serverCertificate() {
            SSLSession session = response.sslSession().orElseThrow();
            try {
                return (X509Certificate) session.getPeerCertificates()[0];
            } catch (javax.net.ssl.SSLPeerUnverifiedException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private final HttpClient client;
    private final URI base;

    public HttpsClient(SSLContext context, int port) {
        this.client = HttpClient.newBuilder().sslContext(context).version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        this.base = URI.create("https://127.0.0.1:" + port);
    }

    public Answer post(String path, String contentType, String body) {
        return send(builder(path).POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)), contentType);
    }

    public Answer post(String path, String contentType, HttpRequest.BodyPublisher body) {
        return send(builder(path).POST(body), contentType);
    }

    public Answer review(String path, String body) {
        return post(path, "application/json", body);
    }

    public Answer get(String path) {
        return send(builder(path).GET(), null);
    }

    private HttpRequest.Builder builder(String path) {
        return HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10));
    }

    private Answer send(HttpRequest.Builder request, String contentType) {
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        try {
            HttpResponse<String> response = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(response.statusCode(), response.body(), response);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
