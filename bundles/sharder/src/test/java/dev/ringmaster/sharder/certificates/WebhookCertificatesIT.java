package dev.ringmaster.sharder.certificates;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ringmaster.ring.testing.MutableClock;
import dev.ringmaster.sharder.ringcontrol.ValidatingWebhookCa;
import dev.ringmaster.sharder.ringcontrol.WebhookClientSettings;
import dev.ringmaster.sharder.ringcontrol.WebhookConfigurations;
import dev.ringmaster.sharder.model.ClusterRing;
import dev.ringmaster.sharder.testing.TestRings;
import dev.ringmaster.testing.apiserver.AuditLog;
import dev.ringmaster.testing.apiserver.RealApiServer;
import dev.ringmaster.webhook.tls.CertificateBuilder;
import dev.ringmaster.webhook.tls.Pem;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Self-signed webhook certificates on a real API server, made by two replicas acting as the sharder's
 * ServiceAccount with exactly the rules the manifests grant for them: {@code create} on Secrets, and
 * {@code get, list, watch, update} on the two Secrets by name (which the by-name watches need: the
 * API server authorizes a list or watch with a {@code metadata.name} field selector against
 * resourceNames); {@code get, list, watch, patch} on one ValidatingWebhookConfiguration by name.
 * Racing replicas create each Secret once and agree on it; a renewal one replica makes reaches the
 * other's files within seconds; the webhook configurations get the CA, and keep it across renewals.
 */
class WebhookCertificatesIT {

    private static final String NAMESPACE = "webhook-certificates-it";
    private static final String SERVICE_RACE = "race";
    private static final int ROUNDS = 3;
    private static final String SERVICE_RENEWAL = "renewal";
    private static final String GUARD = "webhook-certificates-it-guard";
    private static final String RING = "webhook-certificates-it";

    private static final RealApiServer CLUSTER = RealApiServer.shared();
    private static final KubernetesClient ADMIN = CLUSTER.admin();
    private static final List<KubernetesClient> REPLICAS = new ArrayList<>();
    private static final List<String> CREDENTIALS = new ArrayList<>();

    @TempDir
    Path dir;

    @BeforeAll
    static void actAsTheSharder() {
        List<String> secrets = new ArrayList<>();
        List<String> services = new ArrayList<>(List.of(SERVICE_RENEWAL));
        for (int round = 0; round < ROUNDS; round++) {
            services.add(SERVICE_RACE + round);
        }
        for (String service : services) {
            secrets.add(service + "-webhook-ca");
            secrets.add(service + "-webhook-tls");
        }
        for (int i = 0; i < 2; i++) {
            Path kubeconfig = CLUSTER.serviceAccountKubeconfig(NAMESPACE, "sharder",
                    CLUSTER.workFolder(NAMESPACE).resolve("replica-" + i + ".kubeconfig"));
            REPLICAS.add(CLUSTER.clientFor(kubeconfig));
            CREDENTIALS.add(CLUSTER.credentialId(kubeconfig));
        }
        // manifests/role-webhook-certificates.yaml: create cannot be limited to names, the rest is
        CLUSTER.grant(NAMESPACE, "sharder", List.of(
                new PolicyRuleBuilder().withApiGroups("").withResources("secrets").withVerbs("create").build(),
                new PolicyRuleBuilder().withApiGroups("").withResources("secrets").withResourceNames(secrets)
                        .withVerbs("get", "list", "watch", "update").build(),
                // clusterrole.yaml: Warning events about Secrets it repairs
                new PolicyRuleBuilder().withApiGroups("events.k8s.io").withResources("events").withVerbs("create").build()));
        // clusterrole.yaml: the label guard's configuration, by name
        PolicyRule guard = new PolicyRuleBuilder().withApiGroups("admissionregistration.k8s.io")
                .withResources("validatingwebhookconfigurations").withResourceNames(GUARD)
                .withVerbs("get", "list", "watch", "patch").build();
        ADMIN.rbac().clusterRoles().resource(new ClusterRoleBuilder().withNewMetadata().withName(NAMESPACE).endMetadata()
                .withRules(guard).build()).forceConflicts().serverSideApply();
        ADMIN.rbac().clusterRoleBindings().resource(new ClusterRoleBindingBuilder().withNewMetadata().withName(NAMESPACE)
                .endMetadata().withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", NAMESPACE).addNewSubject()
                .withKind("ServiceAccount").withName("sharder").withNamespace(NAMESPACE).endSubject().build())
                .forceConflicts().serverSideApply();
    }

    @AfterAll
    static void closeClients() {
        REPLICAS.forEach(KubernetesClient::close);
    }

    private WebhookCertificates replica(int i, String service, MutableClock clock) {
        return new WebhookCertificates(REPLICAS.get(i), new WebhookCertificates.Settings(NAMESPACE, service,
                Duration.ofDays(3650), Duration.ofDays(365), Optional.of(dir.resolve(service + "-" + i))), clock);
    }

    @Test
    void replicasRacingCreateEachSecretOnceAndAgreeOnIt() throws Exception {
        MutableClock clock = new MutableClock(Instant.now());
        int conflicts = 0;
        for (int round = 0; round < ROUNDS; round++) {
            String service = SERVICE_RACE + round; // Secrets of their own: the audit log tells the rounds apart
            Instant roundStart = Instant.now().minusSeconds(1);
            WebhookCertificates a = replica(0, service, clock);
            WebhookCertificates b = replica(1, service, clock);

            CyclicBarrier together = new CyclicBarrier(2);
            CompletableFuture<WebhookCertificates.Pass> passA = CompletableFuture.supplyAsync(() -> passAfter(together, a));
            CompletableFuture<WebhookCertificates.Pass> passB = CompletableFuture.supplyAsync(() -> passAfter(together, b));
            WebhookCertificates.Pass first = passA.get(60, TimeUnit.SECONDS);
            WebhookCertificates.Pass second = passB.get(60, TimeUnit.SECONDS);

            assertThat(second.authority().certificate()).isEqualTo(first.authority().certificate());
            assertThat(second.serving().certificate()).isEqualTo(first.serving().certificate());
            assertThat(a.caBundle().orElseThrow()).isEqualTo(b.caBundle().orElseThrow())
                    .isEqualTo(data(service + "-webhook-ca", "ca.crt"));
            for (String file : List.of("tls.crt", "tls.key", "ca.crt")) {
                assertThat(Files.readAllBytes(dir.resolve(service + "-1").resolve(file))).as(file)
                        .isEqualTo(Files.readAllBytes(dir.resolve(service + "-0").resolve(file)))
                        .isEqualTo(data(service + "-webhook-tls", file));
            }
            // each Secret created once; whoever lost the race read the winner's (a 409, when they overlapped)
            Map<String, List<Integer>> creates = await().until(() -> secretWrites("create", roundStart, service),
                    writes -> writes.values().stream().mapToInt(List::size).sum() >= 2);
            for (String secret : List.of(service + "-webhook-ca", service + "-webhook-tls")) {
                assertThat(creates.get(secret)).as(secret).containsOnlyOnce(201).isSubsetOf(201, 409);
                conflicts += creates.get(secret).size() - 1;
            }
            assertThat(secretWrites("update", roundStart, service)).as("nothing to update").isEmpty();
        }
        System.out.println("creates that lost the race (409) in " + ROUNDS + " rounds: " + conflicts);
    }

    private static WebhookCertificates.Pass passAfter(CyclicBarrier together, WebhookCertificates replica) {
        try {
            together.await(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return replica.reconcile();
    }

    @Test
    void aRenewalReachesEveryReplicasFilesWithinSecondsAndTheWebhookConfigurationsKeepTheCa() throws Exception {
        MutableClock clock = new MutableClock(Instant.now());
        WebhookCertificates a = replica(0, SERVICE_RENEWAL, clock);
        WebhookCertificates b = replica(1, SERVICE_RENEWAL, clock);
        Path filesA = dir.resolve(SERVICE_RENEWAL + "-0");
        Path filesB = dir.resolve(SERVICE_RENEWAL + "-1");
        try {
            a.start();
            b.start();
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() -> {
                assertThat(Files.readAllBytes(filesA.resolve("tls.crt"))).isEqualTo(data(SERVICE_RENEWAL + "-webhook-tls", "tls.crt"));
                assertThat(Files.readAllBytes(filesB.resolve("tls.crt"))).isEqualTo(data(SERVICE_RENEWAL + "-webhook-tls", "tls.crt"));
            });
            byte[] ca = data(SERVICE_RENEWAL + "-webhook-ca", "ca.crt");
            await().until(() -> b.caBundle().isPresent());
            assertThat(a.caBundle().orElseThrow()).isEqualTo(b.caBundle().orElseThrow()).isEqualTo(ca);

            // the ring's MutatingWebhookConfiguration, as the leader writes it, carries the CA
            ClusterRing ring = ringOnTheServer();
            WebhookConfigurations configurations = new WebhookConfigurations(ADMIN,
                    WebhookClientSettings.defaults().withCaBundleSource(a::caBundle));
            configurations.apply(ring);
            assertThat(caBundle(mutating(ring))).isEqualTo(ca);

            // the label guard's ValidatingWebhookConfiguration too, patched as the sharder (by name), and the
            // cert-manager annotation it shipped with is gone
            ADMIN.admissionRegistration().v1().validatingWebhookConfigurations().resource(guard()).forceConflicts()
                    .serverSideApply();
            assertThat(REPLICAS.get(0).admissionRegistration().v1().validatingWebhookConfigurations().withName(GUARD)
                    .informOnCondition(list -> !list.isEmpty()).get(30, TimeUnit.SECONDS))
                    .as("a watch by name, allowed by resourceNames").hasSize(1);
            new ValidatingWebhookCa(REPLICAS.get(0), new ValidatingWebhookCa.Settings(List.of(GUARD), a::caBundle, null))
                    .reconcile(GUARD);
            ValidatingWebhookConfiguration guard = ADMIN.admissionRegistration().v1().validatingWebhookConfigurations()
                    .withName(GUARD).get();
            assertThat(Base64.getDecoder().decode(guard.getWebhooks().get(0).getClientConfig().getCaBundle())).isEqualTo(ca);
            assertThat(guard.getMetadata().getAnnotations()).doesNotContainKey(WebhookConfigurations.INJECT_CA_FROM_ANNOTATION);

            // a year later less a third: replica A renews; B's watch sees it and B serves it within seconds
            X509Certificate before = Pem.readCertificates(data(SERVICE_RENEWAL + "-webhook-tls", "tls.crt"), "tls.crt").get(0);
            String caVersion = ADMIN.secrets().inNamespace(NAMESPACE).withName(SERVICE_RENEWAL + "-webhook-ca").get()
                    .getMetadata().getResourceVersion();
            Instant renewed = Instant.now();
            clock.set(SelfSignedPki.renewalTime(before).plusSeconds(1));
            a.check();
            await().atMost(Duration.ofSeconds(10)).ignoreExceptions().untilAsserted(() -> {
                byte[] current = data(SERVICE_RENEWAL + "-webhook-tls", "tls.crt");
                assertThat(Pem.readCertificates(current, "tls.crt").get(0)).isNotEqualTo(before);
                assertThat(Files.readAllBytes(filesA.resolve("tls.crt"))).isEqualTo(current);
                assertThat(Files.readAllBytes(filesB.resolve("tls.crt"))).isEqualTo(current);
                assertThat(Files.readAllBytes(filesB.resolve("tls.key"))).isEqualTo(data(SERVICE_RENEWAL + "-webhook-tls", "tls.key"));
            });
            assertThat(ADMIN.secrets().inNamespace(NAMESPACE).withName(SERVICE_RENEWAL + "-webhook-ca").get()
                    .getMetadata().getResourceVersion()).as("the CA stays").isEqualTo(caVersion);
            assertThat(a.caBundle().orElseThrow()).isEqualTo(ca);
            assertThat(b.caBundle().orElseThrow()).isEqualTo(ca);
            assertThat(configurations.apply(ring)).as("the configuration needs no write after a renewal").isFalse();
            assertThat(caBundle(mutating(ring))).isEqualTo(ca);
            Map<String, List<Integer>> updates = await().until(() -> secretWrites("update", renewed, SERVICE_RENEWAL),
                    writes -> !writes.isEmpty());
            assertThat(updates).as("one replica renewed, the other read it").containsOnlyKeys(SERVICE_RENEWAL + "-webhook-tls");
            assertThat(updates.get(SERVICE_RENEWAL + "-webhook-tls")).containsOnlyOnce(200);

            // someone deletes the serving Secret: a replica's watch sees it and it is made again
            ADMIN.secrets().inNamespace(NAMESPACE).withName(SERVICE_RENEWAL + "-webhook-tls").delete();
            await().atMost(Duration.ofSeconds(10)).ignoreExceptions().untilAsserted(() -> {
                Secret recreated = ADMIN.secrets().inNamespace(NAMESPACE).withName(SERVICE_RENEWAL + "-webhook-tls").get();
                assertThat(recreated).isNotNull();
                byte[] current = Base64.getDecoder().decode(recreated.getData().get("tls.crt"));
                assertThat(Files.readAllBytes(filesA.resolve("tls.crt"))).isEqualTo(current);
                assertThat(Files.readAllBytes(filesB.resolve("tls.crt"))).isEqualTo(current);
            });
            assertThat(a.caBundle().orElseThrow()).isEqualTo(ca);
        } finally {
            a.close();
            b.close();
        }
    }

    /**
     * The API server itself (Go's crypto/x509 and TLS, not the JDK) trusts a CA of {@link SelfSignedPki} and
     * the server certificate it signs: a webhook with {@code failurePolicy: Fail} behind such a certificate
     * is called and its patch applied; a create would be refused if the handshake failed.
     */
    @Test
    void theApiServerTrustsTheCaAndCallsAWebhookServingItsCertificate() throws Exception {
        Instant now = Instant.now();
        SelfSignedPki pki = new SelfSignedPki(Duration.ofDays(3650), Duration.ofDays(365), new SecureRandom());
        SelfSignedPki.Authority ca = pki.newAuthority("ringmaster webhook CA " + NAMESPACE, now, List.of());
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        KeyPair keys = generator.generateKeyPair();
        InetAddress loopback = InetAddress.getByName("127.0.0.1");
        X509Certificate certificate = new CertificateBuilder(new SecureRandom()).build(new CertificateBuilder.Spec(
                "127.0.0.1", keys.getPublic(), ca.certificate(), ca.key(), now.minus(SelfSignedPki.BACKDATE),
                now.plus(Duration.ofDays(1)), false, List.of("localhost"), List.of(loopback)));

        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry("tls", keys.getPrivate(), new char[0], new X509Certificate[] {certificate});
        KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keyManagers.init(store, new char[0]);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(keyManagers.getKeyManagers(), null, null);
        HttpsServer server = HttpsServer.create(new InetSocketAddress(loopback, 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(tls));
        AtomicInteger calls = new AtomicInteger();
        server.createContext("/mutate", exchange -> {
            Map<?, ?> review = ADMIN.getKubernetesSerialization().unmarshal(exchange.getRequestBody(), Map.class);
            String uid = String.valueOf(((Map<?, ?>) review.get("request")).get("uid"));
            String patch = Base64.getEncoder().encodeToString(
                    "[{\"op\":\"add\",\"path\":\"/metadata/labels/issued-by\",\"value\":\"ringmaster\"}]"
                            .getBytes(StandardCharsets.UTF_8));
            byte[] answer = ("{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"response\":"
                    + "{\"uid\":\"" + uid + "\",\"allowed\":true,\"patchType\":\"JSONPatch\",\"patch\":\"" + patch + "\"}}")
                    .getBytes(StandardCharsets.UTF_8);
            calls.incrementAndGet();
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        server.start();
        String name = NAMESPACE + "-tls";
        try {
            ADMIN.admissionRegistration().v1().mutatingWebhookConfigurations().resource(
                    new MutatingWebhookConfigurationBuilder().withNewMetadata().withName(name).endMetadata()
                            .addNewWebhook().withName("tls.ringmaster.dev").withAdmissionReviewVersions("v1")
                            .withSideEffects("None").withFailurePolicy("Fail").withTimeoutSeconds(10)
                            .withNewClientConfig()
                            .withUrl("https://127.0.0.1:" + server.getAddress().getPort() + "/mutate")
                            .withCaBundle(Base64.getEncoder().encodeToString(ca.bundlePem()))
                            .endClientConfig()
                            .addNewRule().withApiGroups("").withApiVersions("v1").withResources("configmaps")
                            .withOperations("CREATE").withScope("Namespaced").endRule()
                            .withNewObjectSelector().addToMatchLabels(name, "yes").endObjectSelector()
                            .endWebhook().build())
                    .forceConflicts().serverSideApply();
            // the API server reads webhook configurations through an informer: a moment until it calls this one
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
                String configMap = "called-" + System.nanoTime();
                ADMIN.configMaps().inNamespace(NAMESPACE).resource(new ConfigMapBuilder().withNewMetadata()
                        .withName(configMap).addToLabels(name, "yes").endMetadata().build()).create();
                return "ringmaster".equals(ADMIN.configMaps().inNamespace(NAMESPACE).withName(configMap).get()
                        .getMetadata().getLabels().get("issued-by"));
            });
            assertThat(calls.get()).isPositive();
        } finally {
            ADMIN.admissionRegistration().v1().mutatingWebhookConfigurations().withName(name).delete();
            server.stop(0);
        }
    }

    /** The replicas' writes of one service's Secrets since a moment, by Secret name: status codes. */
    private static Map<String, List<Integer>> secretWrites(String verb, Instant since, String service) {
        return CLUSTER.audit().events().stream()
                .filter(event -> !event.received().isBefore(since) && verb.equals(event.verb())
                        && "secrets".equals(event.resource()) && NAMESPACE.equals(event.namespace())
                        && event.name().startsWith(service + "-")
                        && CREDENTIALS.stream().anyMatch(event::madeWith))
                .collect(Collectors.groupingBy(AuditLog.Event::name,
                        Collectors.mapping(AuditLog.Event::code, Collectors.toList())));
    }

    private static byte[] data(String secret, String key) {
        Secret read = ADMIN.secrets().inNamespace(NAMESPACE).withName(secret).get();
        return read == null ? new byte[0] : Base64.getDecoder().decode(read.getData().get(key));
    }

    private static ClusterRing ringOnTheServer() throws Exception {
        try (InputStream crd = WebhookCertificatesIT.class.getClassLoader()
                .getResourceAsStream("META-INF/fabric8/clusterrings.sharding.timebertt.dev-v1.yml")) {
            ADMIN.apiextensions().v1().customResourceDefinitions()
                    .resource(ADMIN.getKubernetesSerialization().unmarshal(crd, CustomResourceDefinition.class))
                    .forceConflicts().serverSideApply();
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            CustomResourceDefinition served = ADMIN.apiextensions().v1().customResourceDefinitions()
                    .withName("clusterrings.sharding.timebertt.dev").get();
            return served.getStatus() != null && served.getStatus().getConditions().stream()
                    .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
        });
        return ADMIN.resources(ClusterRing.class).resource(TestRings.configMapRing(RING)).forceConflicts().serverSideApply();
    }

    private static MutatingWebhookConfiguration mutating(ClusterRing ring) {
        return ADMIN.admissionRegistration().v1().mutatingWebhookConfigurations()
                .withName(ring.ringKind().webhookConfigurationName(RING)).get();
    }

    private static byte[] caBundle(MutatingWebhookConfiguration configuration) {
        return Base64.getDecoder().decode(configuration.getWebhooks().get(0).getClientConfig().getCaBundle());
    }

    /** Shaped like manifests/label-guard's configuration as it shipped for cert-manager. */
    private static ValidatingWebhookConfiguration guard() {
        return new ValidatingWebhookConfigurationBuilder().withNewMetadata().withName(GUARD)
                .addToAnnotations(WebhookConfigurations.INJECT_CA_FROM_ANNOTATION, NAMESPACE + "/sharder-webhook")
                .endMetadata()
                .addNewWebhook().withName("label-guard.ringmaster.dev").withAdmissionReviewVersions("v1")
                .withSideEffects("None").withFailurePolicy("Ignore").withMatchPolicy("Equivalent").withTimeoutSeconds(5)
                .withNewClientConfig().withNewService().withNamespace(NAMESPACE).withName(SERVICE_RENEWAL).withPort(443)
                .withPath("/webhooks/label-guard/").endService().endClientConfig()
                .addNewRule().withApiGroups("").withApiVersions("*").withResources("configmaps")
                .withOperations("UPDATE").withScope("*").endRule()
                .withNewNamespaceSelector().addToMatchLabels("webhook-certificates-it", "never").endNamespaceSelector()
                .endWebhook().build();
    }
}
