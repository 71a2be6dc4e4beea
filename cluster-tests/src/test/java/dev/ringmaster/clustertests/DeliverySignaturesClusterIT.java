package dev.ringmaster.clustertests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.clustertests.support.Command;
import dev.ringmaster.clustertests.support.NodeCluster;
import dev.ringmaster.clustertests.support.Sharder;
import dev.ringmaster.clustertests.support.TimedScenarios;
import dev.ringmaster.clustertests.support.Waiting;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Signed plug-ins (docs/operating.md, "Who may change code"), set up as the docs tell an operator: a
 * signer made with {@code keytool}, its certificate built into an image derived from the sharder's
 * ({@code FROM} it, the PEM file and {@code trustedCertificates} in {@code etc/dev.ringmaster.delivery.cfg}),
 * the sharder's Deployment rolled to that image, the example strategy's jar signed with {@code jarsigner}.
 * The trust comes from the image, never from a ConfigMap. The Deployment is rolled back to the install's
 * image afterwards, and the ConfigMaps are deleted, so the classes after this one find the install as
 * it was: {@link HotSwapClusterIT}, next by name, delivers an unsigned jar, which a sharder still
 * trusting the test's signer would refuse.
 */
@ExtendWith(TimedScenarios.class)
class DeliverySignaturesClusterIT {

    private static final String IMAGE = "ringmaster-trusting-signer:" + NodeCluster.VERSION;
    private static final String TRUST = "/opt/ringmaster/trust/signers.pem";
    private static final String KEY = "jump-hash.jar";
    private static final String STORE_PASSWORD = "cluster-tests";
    /** The delivery ConfigMaps of the scenario, by what their jar is. */
    private static final Map<String, String> CONFIG_MAPS = new TreeMap<>(Map.of(
            "signed", "signed-plug-in", "unsigned", "unsigned-plug-in", "tampered", "tampered-plug-in",
            "wrongly signed", "wrongly-signed-plug-in"));

    private static NodeCluster cluster;
    private static Sharder sharder;
    private static String installedImage;

    @BeforeAll
    static void sharderTrustingATestSigner() throws IOException {
        cluster = NodeCluster.get();
        sharder = new Sharder(cluster);
        Path work = Files.createDirectories(cluster.work().resolve("signed-plug-ins"));
        Path image = Files.createDirectories(work.resolve("image"));
        keytool(work, "signer", "CN=cluster-tests plug-in signer");
        keytool(work, "stranger", "CN=cluster-tests plug-in signer"); // the same name, another key
        run(work, "keytool", "-exportcert", "-rfc", "-alias", "plugins", "-keystore", "signer.p12", "-storepass",
                STORE_PASSWORD, "-file", image.resolve("signers.pem").toString());
        String cfg = Files.readString(cluster.root().resolve("distribution/target/ringmaster/etc/dev.ringmaster.delivery.cfg"));
        assertThat(cfg).as("the shipped delivery configuration").containsOnlyOnce("\ntrustedCertificates =\n");
        Files.writeString(image.resolve("dev.ringmaster.delivery.cfg"),
                cfg.replace("\ntrustedCertificates =\n", "\ntrustedCertificates = " + TRUST + "\n"));
        Files.writeString(image.resolve("Containerfile"), """
                FROM localhost/ringmaster:%s
                COPY signers.pem %s
                COPY dev.ringmaster.delivery.cfg /opt/ringmaster/etc/dev.ringmaster.delivery.cfg
                """.formatted(NodeCluster.VERSION, TRUST));
        cluster.buildImage(IMAGE, image.resolve("Containerfile"), image);

        installedImage = cluster.kubectl("-n", Sharder.NAMESPACE, "get", "deployment", "sharder", "-o",
                "jsonpath={.spec.template.spec.containers[?(@.name==\"sharder\")].image}").orThrow().out().strip();
        roll(IMAGE);
    }

    @AfterAll
    static void theInstallAsItWas() {
        if (cluster == null || installedImage == null) {
            return;
        }
        List<String> delete = new ArrayList<>(List.of("-n", Sharder.NAMESPACE, "delete", "configmap",
                "--ignore-not-found"));
        delete.addAll(CONFIG_MAPS.values());
        cluster.kubectl(delete.toArray(String[]::new));
        roll(installedImage);
        sharder.awaitDelivered(Duration.ofSeconds(60));
    }

    /**
     * The example strategy's jar signed with {@code jarsigner} by the trusted signer is applied by both
     * replicas; the same jar unsigned, signed and then changed, and signed by a key the image does not
     * trust, are refused by both with a Warning Event saying why; no sharder pod is replaced and no
     * container restarts meanwhile.
     */
    @Test
    void onlyAJarSignedByTheImagesSignerRuns() throws Exception {
        Path work = cluster.work().resolve("signed-plug-ins");
        Map<String, Integer> restarts = sharder.restarts();
        for (String pod : restarts.keySet()) {
            assertThat(cluster.kubectl("-n", Sharder.NAMESPACE, "logs", pod, "-c", "sharder").orThrow().out())
                    .as("%s says what it trusts", pod)
                    .contains("Delivered bundles must be signed: 1 trusted certificate(s) from " + TRUST);
        }
        Path unsigned = Files.copy(HotSwapClusterIT.jumpHashJar(), work.resolve("unsigned.jar"), StandardCopyOption.REPLACE_EXISTING);
        Path signed = jarsigner(work, "signer", unsigned, "signed.jar");
        Path tampered = Files.write(work.resolve("tampered.jar"), tamper(Files.readAllBytes(signed)));
        Path wronglySigned = jarsigner(work, "stranger", unsigned, "wrongly-signed.jar");
        Map<String, Path> jars = Map.of("signed", signed, "unsigned", unsigned, "tampered", tampered,
                "wrongly signed", wronglySigned);
        Map<String, String> reasons = Map.of("unsigned", "it is not signed",
                "tampered", "its signature does not match its content",
                "wrongly signed", "signed by \"CN=cluster-tests plug-in signer\", which no trusted certificate vouches for");

        long started = System.nanoTime();
        CONFIG_MAPS.forEach((what, configMap) -> {
            cluster.kubectl("-n", Sharder.NAMESPACE, "create", "configmap", configMap,
                    "--from-file=" + KEY + "=" + jars.get(what)).orThrow();
            cluster.kubectl("-n", Sharder.NAMESPACE, "label", "configmap", configMap,
                    Sharder.DELIVERY_LABEL + "=true").orThrow();
        });
        Waiting.until(Duration.ofSeconds(30), () -> "both replicas apply the signed jar and refuse the others: "
                + events(), () -> restarts.keySet().stream().allMatch(pod ->
                        sharder.deliveryEvents(pod, CONFIG_MAPS.get("signed")).stream().anyMatch(event ->
                                event.startsWith("Applied: ") && event.contains("bundle org.example.ringmaster.jumphash")
                                        && event.contains(", active)"))
                        && reasons.entrySet().stream().allMatch(reason -> sharder.deliveryEvents(pod,
                                CONFIG_MAPS.get(reason.getKey())).stream().anyMatch(event -> event.startsWith("Refused: ")
                                        && event.contains(KEY) && event.contains(reason.getValue())))));
        System.out.printf("cluster-tests: signed jar applied, three refused on both replicas %.1f s after the deliveries%n",
                (System.nanoTime() - started) / 1e9);
        for (String configMap : List.of(CONFIG_MAPS.get("unsigned"), CONFIG_MAPS.get("tampered"),
                CONFIG_MAPS.get("wrongly signed"))) {
            assertThat(warnings(configMap)).as("Warning Events on %s", configMap).isPositive();
        }
        assertThat(sharder.restarts()).as("sharder pods and their restart counts").isEqualTo(restarts);
    }

    /** The Deployment on {@code image}, rolled out; timed as the phase "roll to IMAGE". */
    private static void roll(String image) {
        long started = System.nanoTime();
        cluster.kubectl("-n", Sharder.NAMESPACE, "set", "image", "deployment/sharder", "sharder=" + image).orThrow();
        Command.Result rollout = cluster.kubectl("-n", Sharder.NAMESPACE, "rollout", "status", "deployment/sharder",
                "--timeout=3m");
        assertThat(rollout.ok()).as("the sharder rolled out on %s: %s\n%s", image, rollout.describe(),
                sharder.diagnostics()).isTrue();
        Waiting.until(Duration.ofSeconds(60), () -> "only sharder pods on " + image + ", none terminating: "
                + sharder.diagnostics(), () -> sharder.pods().stream().allMatch(pod -> pod.getMetadata().getDeletionTimestamp() == null
                        && pod.getSpec().getContainers().stream().anyMatch(container -> container.getImage().equals(image))));
        NodeCluster.record("roll to " + image, Duration.ofNanos(System.nanoTime() - started));
        sharder.printReadiness("roll to " + image);
    }

    /** A PKCS#12 key store {@code NAME.p12} with an EC key and a self-signed certificate, as docs/operating.md makes one. */
    private static void keytool(Path work, String name, String subject) throws IOException {
        Files.deleteIfExists(work.resolve(name + ".p12"));
        run(work, "keytool", "-genkeypair", "-alias", "plugins", "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", subject, "-validity", "30", "-keystore", name + ".p12", "-storetype", "PKCS12",
                "-storepass", STORE_PASSWORD);
    }

    private static Path jarsigner(Path work, String store, Path jar, String signedName) {
        run(work, "jarsigner", "-keystore", store + ".p12", "-storepass", STORE_PASSWORD, "-signedjar", signedName,
                jar.toString(), "plugins");
        return work.resolve(signedName);
    }

    private static void run(Path work, String... command) {
        Command.run(work, Map.of(), Duration.ofMinutes(1), List.of(command)).orThrow();
    }

    /** The jar with one byte appended to its first class: the signature's digest of it no longer matches. */
    private static byte[] tamper(byte[] jar) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        boolean changed = false;
        try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(jar));
                ZipOutputStream zip = new ZipOutputStream(out)) {
            for (ZipEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
                byte[] content = in.readAllBytes();
                zip.putNextEntry(new ZipEntry(entry.getName()));
                zip.write(content);
                if (!changed && entry.getName().endsWith(".class")) {
                    zip.write(0);
                    changed = true;
                }
                zip.closeEntry();
            }
        }
        assertThat(changed).as("a class to change in the jar").isTrue();
        return out.toByteArray();
    }

    private static long warnings(String configMap) {
        return cluster.admin().v1().events().inNamespace(Sharder.NAMESPACE).list().getItems().stream()
                .filter(event -> configMap.equals(event.getInvolvedObject().getName()) && "Warning".equals(event.getType())
                        && "Refused".equals(event.getReason())).count();
    }

    private static String events() {
        return sharder.podNames().stream().collect(Collectors.toMap(Function.identity(),
                pod -> CONFIG_MAPS.values().stream().collect(Collectors.toMap(Function.identity(),
                        configMap -> sharder.deliveryEvents(pod, configMap), (a, b) -> a, TreeMap::new)),
                (a, b) -> a, TreeMap::new)).toString();
    }
}
