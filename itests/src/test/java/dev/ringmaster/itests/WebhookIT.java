package dev.ringmaster.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import dev.ringmaster.itests.support.Configurations;
import dev.ringmaster.itests.support.Distribution;
import dev.ringmaster.itests.support.Until;
import dev.ringmaster.itests.support.WebhookCertificates;
import dev.ringmaster.itests.support.WebhookClient;
import dev.ringmaster.itests.webhookhandler.ItestAdmissionHandler;
import dev.ringmaster.ring.spi.AdmissionHandler;
import dev.ringmaster.ring.spi.AdmissionResponse;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.inject.Inject;
import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.MethodSorters;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;
import org.osgi.framework.wiring.BundleWire;
import org.osgi.framework.wiring.BundleWiring;

/**
 * The webhook in the distribution's Felix: its bundle and the Jetty bundles resolve and start with the
 * distribution's bundle set; configured through Config Admin with PEM files, it answers real HTTPS
 * AdmissionReviews with the admission handlers registered at run time, by a service of the test and by a
 * handler bundle installed and uninstalled while it runs; it re-reads rotated certificate files; a
 * configuration change restarts it. One framework for the class; the tests run in name order.
 *
 * <p>The certificates are made in the test JVM by {@link WebhookCertificates} (Bouncy Castle, which the
 * framework never sees) before the framework boots; their directory reaches the probe as the system
 * property {@value #CERTIFICATES}.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class WebhookIT {

    static final String CERTIFICATES = "ringmaster.itests.webhook.certificates";

    private static final String WEBHOOK_PID = "dev.ringmaster.webhook";
    private static final String WEBHOOK_BSN = "dev.ringmaster.webhook";
    private static final String PORT_PROPERTY = "dev.ringmaster.webhook.port";
    private static final String OPS_HTTP_PID = "dev.ringmaster.ops.http";
    private static final String OPS_HTTP_PORT = "dev.ringmaster.ops.http.port";
    private static final List<String> JETTY_BSNS = List.of("org.eclipse.jetty.server", "org.eclipse.jetty.http",
            "org.eclipse.jetty.io", "org.eclipse.jetty.util");
    private static final String TEST_PREFIX = "/webhooks/itest/";
    private static final Duration SOON = Duration.ofSeconds(20);

    @Inject
    private BundleContext context;

    /** Runs in the test JVM: the options of {@link StrategyHotSwapIT}, an own working directory, the certificates. */
    @org.ops4j.pax.exam.Configuration
    public Option[] config() {
        List<Option> options = new ArrayList<>(StrategyHotSwapIT.distributionOptions(getClass()));
        Path certificates = WebhookCertificates.write(Distribution.work("webhook-certificates"));
        options.add(systemProperty(CERTIFICATES).value(certificates.toString()));
        return options.toArray(Option[]::new);
    }

    @Test
    public void a_theWebhookAndJettyBundlesAreActiveAndWiredToEachOther() {
        Bundle webhook = Distribution.installed(context, WEBHOOK_BSN).orElseThrow(
                () -> new AssertionError("the distribution ships " + WEBHOOK_BSN));
        assertEquals(Bundle.ACTIVE, webhook.getState());
        for (String jetty : JETTY_BSNS) {
            Bundle bundle = Distribution.installed(context, jetty).orElseThrow(
                    () -> new AssertionError("the distribution ships " + jetty));
            assertEquals(jetty + " is active", Bundle.ACTIVE, bundle.getState());
        }
        Set<String> providers = new TreeSet<>();
        for (BundleWire wire : webhook.adapt(BundleWiring.class).getRequiredWires(null)) {
            providers.add(wire.getProvider().getBundle().getSymbolicName());
        }
        assertTrue("wired to Jetty's server bundle: " + providers, providers.contains("org.eclipse.jetty.server"));
        assertTrue("wired to Jackson: " + providers, providers.contains("com.fasterxml.jackson.core.jackson-databind"));
        assertTrue("no webhook without its configuration", listeningPort().isEmpty());
    }

    @Test
    public void b_servesAHandlerServiceRegisteredAtRunTimeUntilItIsUnregistered() throws Exception {
        int port = configured(WebhookCertificates.FIRST);
        HttpClient client = client();
        assertEquals(404, review(client, port, TEST_PREFIX + "x", "it-b0").statusCode());

        Hashtable<String, Object> properties = new Hashtable<>();
        properties.put(AdmissionHandler.NAME, "itest");
        properties.put(AdmissionHandler.PATH_PREFIX, TEST_PREFIX);
        ServiceRegistration<AdmissionHandler> registration = context.registerService(AdmissionHandler.class,
                (path, request) -> AdmissionResponse.allowWithWarning("itest saw " + request.name() + " at " + path),
                properties);
        try {
            HttpResponse<String> answer = Until.value(SOON, "the registered handler to answer",
                    () -> Optional.of(review(client, port, TEST_PREFIX + "x", "it-b1")).filter(r -> r.statusCode() == 200));
            assertTrue(answer.body(), answer.body().contains("\"uid\":\"it-b1\""));
            assertTrue(answer.body(), answer.body().contains("\"allowed\":true"));
            assertTrue(answer.body(), answer.body().contains("\"warnings\":[\"itest saw cm-it-b1 at /webhooks/itest/x\"]"));
        } finally {
            registration.unregister();
        }
        HttpResponse<String> gone = Until.value(SOON, "404 once the handler is unregistered",
                () -> Optional.of(review(client, port, TEST_PREFIX + "x", "it-b2")).filter(r -> r.statusCode() == 404));
        assertTrue(gone.body(), gone.body().contains("\"uid\":\"it-b2\""));
        assertEquals("the server was not restarted", Optional.of(port), listeningPort());

        Timer timer = Until.value(SOON, "the request timer of the itest handler", () -> Optional.ofNullable(meters()
                .find("ringmaster.webhook.requests").tags("handler", "itest", "outcome", "allowed").timer()));
        assertTrue("requests counted: " + timer.count(), timer.count() >= 1);
    }

    @Test
    public void c_servesAHandlerBundleInstalledAtRunTimeUntilItIsUninstalled() throws Exception {
        int port = configured(WebhookCertificates.FIRST);
        HttpClient client = client();
        String path = ItestAdmissionHandler.PREFIX + "example";
        assertEquals(404, review(client, port, path, "it-c0").statusCode());

        Bundle handler = context.installBundle("itest:webhook-handler-bundle", handlerBundle());
        try {
            handler.start();
            HttpResponse<String> answer = Until.value(SOON, "the handler bundle to answer",
                    () -> Optional.of(review(client, port, path, "it-c1")).filter(r -> r.statusCode() == 200));
            assertTrue(answer.body(), answer.body().contains("\"uid\":\"it-c1\""));
            assertTrue(answer.body(), answer.body().contains("\"patchType\":\"JSONPatch\""));
            assertEquals("[{\"op\":\"add\",\"path\":\"" + ItestAdmissionHandler.LABEL_PATH + "\",\"value\":\"cm-it-c1\"}]",
                    patch(answer.body()));
        } finally {
            handler.uninstall();
        }
        assertEquals(Bundle.UNINSTALLED, handler.getState());
        Until.holds(SOON, "404 once the handler bundle is uninstalled",
                () -> review(client, port, path, "it-c2").statusCode() == 404);
        assertEquals("the server was not restarted", Optional.of(port), listeningPort());
    }

    @Test
    public void d_rotatedCertificateFilesAreServedWithoutARestart() throws Exception {
        int port = configured(WebhookCertificates.FIRST);
        HttpClient client = client();
        BigInteger first = serverSerial(review(client, port, "/nowhere", "it-d0"));
        Path tls = tlsDirectory();
        Path second = certificates().resolve(WebhookCertificates.SECOND);
        // as an operator replacing the files by hand would: write each file anew (not atomic, unlike the kubelet)
        Files.copy(second.resolve("tls.key"), tls.resolve("tls.key"), StandardCopyOption.REPLACE_EXISTING);
        Files.copy(second.resolve("tls.crt"), tls.resolve("tls.crt"), StandardCopyOption.REPLACE_EXISTING);

        BigInteger expected = certificate(second.resolve("tls.crt")).getSerialNumber();
        Until.holds(SOON, "new connections served the second certificate",
                () -> serverSerial(review(client(), port, "/nowhere", "it-d1")).equals(expected));
        assertTrue("the first certificate was served before", !first.equals(expected));
        assertEquals("the port stayed open", Optional.of(port), listeningPort());
        assertEquals(Optional.empty(), webhookReadiness());
    }

    /** Readiness as Kubernetes probes it: {@code GET /readyz} of the ops bundle. */
    @Test
    public void e_aConfigurationChangeRestartsTheServerAndReadyzTellsWhy() throws Exception {
        configured(WebhookCertificates.FIRST);
        assertEquals(Optional.empty(), webhookReadiness());

        configure(WEBHOOK_PID, Map.of("host", "127.0.0.1", "port", 0,
                "tlsDir", certificates().resolve("missing").toString(), "reloadIntervalMillis", 200L));
        Until.holds(SOON, "the webhook to stop listening", () -> listeningPort().isEmpty());
        String problem = Until.value(SOON, "/readyz to report the webhook", this::webhookReadiness);
        assertTrue(problem, problem.startsWith("webhook: no valid TLS certificate, not listening: "));
        assertTrue(problem, problem.contains(certificates().resolve("missing").resolve("tls.crt").toString()));

        configured(WebhookCertificates.FIRST);
        Until.holds(SOON, "/readyz to no longer report the webhook", () -> webhookReadiness().isEmpty());
    }

    /** Configures the webhook on a free loopback port with a fresh copy of one certificate set; its port. */
    private int configured(String certificateSet) throws IOException {
        Path tls = tlsDirectory();
        Files.createDirectories(tls);
        Path source = certificates().resolve(certificateSet);
        if (listeningPort().isEmpty() || !Files.exists(tls.resolve("tls.crt"))) {
            Files.copy(source.resolve("tls.crt"), tls.resolve("tls.crt"), StandardCopyOption.REPLACE_EXISTING);
            Files.copy(source.resolve("tls.key"), tls.resolve("tls.key"), StandardCopyOption.REPLACE_EXISTING);
        }
        configure(WEBHOOK_PID, Map.of("host", "127.0.0.1", "port", 0, "tlsDir", tls.toString(),
                "reloadIntervalMillis", 200L));
        return Until.value(SOON, () -> "the webhook to listen (/readyz: " + webhookReadiness() + ")",
                this::listeningPort);
    }

    private void configure(String pid, Map<String, Object> values) throws IOException {
        Configurations.configure(context, pid, values);
    }

    /** The port of the webhook's listening registration, if it listens. */
    private Optional<Integer> listeningPort() {
        return references("(" + PORT_PROPERTY + "=*)").stream()
                .map(reference -> (Integer) reference.getProperty(PORT_PROPERTY))
                .findFirst();
    }

    /** The webhook's line of {@code GET /readyz} (ops HTTP on a free loopback port), empty when it is ready. */
    private Optional<String> webhookReadiness() {
        try {
            configure(OPS_HTTP_PID, Map.of("host", "127.0.0.1", "port", 0));
            int port = Until.value(Until.IN_PROCESS, "the ops HTTP listener",
                    () -> references("(" + OPS_HTTP_PORT + "=*)").stream()
                    .map(reference -> (Integer) reference.getProperty(OPS_HTTP_PORT)).findFirst());
            HttpResponse<String> readyz = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz")).build(),
                    HttpResponse.BodyHandlers.ofString());
            Optional<String> line = readyz.body().lines().filter(text -> text.startsWith("webhook: ")).findFirst();
            assertTrue(readyz.statusCode() + " " + readyz.body(), line.isEmpty() || readyz.statusCode() == 503);
            return line;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private MeterRegistry meters() {
        return context.getService(awaitService(MeterRegistry.class, null));
    }

    /** A jar of one class file and a manifest: a bundle whose activator registers an admission handler. */
    private InputStream handlerBundle() throws IOException {
        Manifest manifest = new Manifest();
        Attributes main = manifest.getMainAttributes();
        main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        main.putValue(Constants.BUNDLE_MANIFESTVERSION, "2");
        main.putValue(Constants.BUNDLE_SYMBOLICNAME, "dev.ringmaster.itests.webhookhandler");
        main.putValue(Constants.BUNDLE_VERSION, "1.0.0");
        main.putValue(Constants.BUNDLE_ACTIVATOR, ItestAdmissionHandler.class.getName());
        main.putValue(Constants.IMPORT_PACKAGE,
                "dev.ringmaster.ring.spi;version=\"[1.0,2)\",org.osgi.framework;version=\"[1.8,2)\"");
        String classFile = ItestAdmissionHandler.class.getName().replace('.', '/') + ".class";
        ByteArrayOutputStream jar = new ByteArrayOutputStream();
        try (JarOutputStream out = new JarOutputStream(jar, manifest);
                InputStream bytes = ItestAdmissionHandler.class.getClassLoader().getResourceAsStream(classFile)) {
            assertNotNull("the probe carries " + classFile, bytes);
            out.putNextEntry(new JarEntry(classFile));
            bytes.transferTo(out);
            out.closeEntry();
        }
        return new ByteArrayInputStream(jar.toByteArray());
    }

    private static HttpResponse<String> review(HttpClient client, int port, String path, String uid) {
        try {
            return WebhookClient.post(client, port, path, WebhookClient.createConfigMap(uid, "default", "cm-" + uid));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The decoded JSONPatch of an AdmissionReview response body. */
    private static String patch(String body) {
        Matcher matcher = Pattern.compile("\"patch\":\"([A-Za-z0-9+/=]+)\"").matcher(body);
        assertTrue(body, matcher.find());
        return new String(Base64.getDecoder().decode(matcher.group(1)), StandardCharsets.UTF_8);
    }

    private static BigInteger serverSerial(HttpResponse<String> response) {
        try {
            return ((X509Certificate) response.sslSession().orElseThrow().getPeerCertificates()[0]).getSerialNumber();
        } catch (javax.net.ssl.SSLPeerUnverifiedException e) {
            throw new AssertionError(e);
        }
    }

    /** HTTP/1.1 over TLS, trusting only the test CA. */
    private static HttpClient client() {
        return WebhookClient.trusting(certificates().resolve(WebhookCertificates.CA));
    }

    private static X509Certificate certificate(Path pem) throws IOException {
        try (InputStream in = Files.newInputStream(pem)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        } catch (GeneralSecurityException e) {
            throw new AssertionError(e);
        }
    }

    private static Path certificates() {
        String directory = System.getProperty(CERTIFICATES);
        assertNotNull("the test JVM passes the certificates' directory as " + CERTIFICATES, directory);
        return Path.of(directory);
    }

    /** The webhook's tlsDir: a copy the tests may overwrite, beside the generated sets. */
    private static Path tlsDirectory() {
        return certificates().resolve("served");
    }

    private <S> ServiceReference<S> awaitService(Class<S> type, String filter) {
        return Until.value(Until.IN_PROCESS,
                "a " + type.getSimpleName() + " service" + (filter == null ? "" : " " + filter), () -> {
            try {
                return context.getServiceReferences(type, filter).stream().findFirst();
            } catch (InvalidSyntaxException e) {
                throw new AssertionError(e);
            }
        });
    }

    /** Services of any type matching the filter. */
    private List<ServiceReference<?>> references(String filter) {
        try {
            ServiceReference<?>[] found = context.getAllServiceReferences(null, filter);
            return found == null ? List.of() : List.of(found);
        } catch (InvalidSyntaxException e) {
            throw new AssertionError(e);
        }
    }
}
