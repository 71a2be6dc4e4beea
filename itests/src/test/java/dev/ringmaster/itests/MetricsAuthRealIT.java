package dev.ringmaster.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import dev.ringmaster.itests.support.Cli;
import dev.ringmaster.itests.support.RealCluster;
import dev.ringmaster.itests.support.SharderHome;
import dev.ringmaster.itests.support.Waiting;
import dev.ringmaster.itests.support.WebhookCertificates;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * {@code bin/ringmaster run --metrics-auth kubernetes} on the real API server, with the RBAC of
 * {@code manifests/} (RealCluster installs ringmaster:sharder:metrics-auth and ringmaster:metrics-reader):
 * {@code /metrics} is served over HTTPS with the webhook's certificate, to a ServiceAccount token bound
 * to ringmaster:metrics-reader (200), not to one without the binding (403), nor without a token or with a
 * garbage one (401); the plain ops port keeps {@code /healthz} and {@code /readyz} and serves no metrics.
 */
public class MetricsAuthRealIT {

    private static final String SCRAPERS = "metrics-scrapers";
    private static final String READER = "reader";
    private static final String STRANGER = "stranger";
    private static final String BINDING = "itests-metrics-reader";

    private static RealCluster cluster;
    private static KubernetesClient admin;
    private static SharderHome replica;
    private static Cli.Started sharder;
    private static int metricsPort;
    private static HttpClient https;

    @BeforeClass
    public static void runTheSharderWithMetricsAuth() throws Exception {
        cluster = RealCluster.get();
        admin = cluster.admin();
        admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(SCRAPERS).endMetadata().build())
                .serverSideApply();
        for (String account : List.of(READER, STRANGER)) {
            admin.serviceAccounts().inNamespace(SCRAPERS).resource(new ServiceAccountBuilder().withNewMetadata()
                    .withName(account).endMetadata().build()).serverSideApply();
        }
        // what docs/monitoring.md tells an operator to do for a scraper
        admin.rbac().clusterRoleBindings().resource(new ClusterRoleBindingBuilder().withNewMetadata().withName(BINDING)
                .endMetadata().withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("ClusterRole")
                .withName("ringmaster:metrics-reader").endRoleRef().addNewSubject().withKind("ServiceAccount")
                .withName(READER).withNamespace(SCRAPERS).endSubject().build()).serverSideApply();

        replica = SharderHome.prepare("metrics-auth");
        metricsPort = replica.metricsPort();
        List<String> args = new ArrayList<>(replica.runArgsCalledBack(cluster.sharderKubeconfig(replica)));
        args.addAll(List.of("--metrics-auth", "kubernetes"));
        sharder = Cli.start(replica.home(), args);
        Waiting.until(Duration.ofSeconds(60), () -> "ready\n" + sharder.err(), () -> replica.status("/readyz") == 200);
        https = HttpClient.newBuilder().sslContext(trusting(replica.tls().resolve(WebhookCertificates.CA)))
                .connectTimeout(Duration.ofSeconds(5)).build();
        Waiting.until(Duration.ofSeconds(30), () -> "metrics listening on " + metricsPort + "\n" + sharder.err(),
                () -> scrape(null).statusCode() > 0);
    }

    @AfterClass
    public static void stopTheSharder() throws InterruptedException {
        Cli.kill(sharder);
        if (admin != null) {
            admin.rbac().clusterRoleBindings().withName(BINDING).delete();
        }
    }

    @Test
    public void aTokenBoundToTheMetricsReaderRoleScrapes() throws Exception {
        HttpResponse<String> response = scrape(token(READER));

        assertEquals(response.body(), 200, response.statusCode());
        assertTrue(response.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
        assertTrue(response.body().contains("ringmaster_sharder_leader"));
        assertTrue(response.body().contains("jvm_memory_used_bytes"));
        // served with the webhook's certificate: the client above trusts only the webhook's CA
        assertTrue(response.sslSession().isPresent());
    }

    @Test
    public void aTokenWithoutTheBindingIsForbidden() throws Exception {
        HttpResponse<String> response = scrape(token(STRANGER));

        assertEquals(403, response.statusCode());
        assertTrue(response.body(), response.body().contains("system:serviceaccount:" + SCRAPERS + ":" + STRANGER));
        assertFalse(response.body().contains("ringmaster_"));
    }

    @Test
    public void noTokenOrAGarbageTokenIsUnauthorized() throws Exception {
        assertEquals(401, scrape(null).statusCode());
        assertEquals(401, scrape("garbage").statusCode());
        // a token the API server signed once, cut short: not a token it accepts
        String reader = token(READER);
        assertEquals(401, scrape(reader.substring(0, reader.length() - 8)).statusCode());
    }

    @Test
    public void thePlainOpsPortKeepsTheProbesAndServesNoMetrics() {
        assertEquals(200, replica.status("/healthz"));
        assertEquals(200, replica.status("/readyz"));
        assertEquals(404, replica.status("/metrics"));
    }

    private static String token(String account) {
        return admin.serviceAccounts().inNamespace(SCRAPERS).withName(account).tokenRequest(new TokenRequestBuilder()
                .withNewSpec().withExpirationSeconds(3600L).endSpec().build()).getStatus().getToken();
    }

    private static HttpResponse<String> scrape(String token) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + metricsPort + "/metrics"))
                .timeout(Duration.ofSeconds(10)).GET();
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        try {
            return https.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new AssertionError("https://127.0.0.1:" + metricsPort + "/metrics: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static SSLContext trusting(Path caFile) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (InputStream pem = Files.newInputStream(caFile)) {
            trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(pem));
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, factory.getTrustManagers(), null);
        return context;
    }
}
