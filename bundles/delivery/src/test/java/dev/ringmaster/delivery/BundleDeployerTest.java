package dev.ringmaster.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.apache.felix.framework.FrameworkFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.SynchronousBundleListener;
import org.osgi.framework.Version;
import org.osgi.framework.launch.Framework;

/** The deployer in a real Felix framework, with bundles built by the test. */
class BundleDeployerTest {

    private static final String NAMESPACE_AND_NAME = "sharding-system/plugins";
    /** The one entry of the test's bundles besides the manifest. */
    static final String RESOURCE = "about.txt";

    @TempDir
    Path storage;

    private Framework framework;
    private BundleContext context;
    /**
     * Each bundle event (its type and the bundle's location), delivered synchronously: "no update" is no event, as
     * the bundles' last-modified times also move when Felix applies a start level, asynchronously.
     */
    private final List<String> bundleEvents = new CopyOnWriteArrayList<>();

    @BeforeEach
    void startFramework() throws Exception {
        framework = new FrameworkFactory().newFramework(Map.of(
                Constants.FRAMEWORK_STORAGE, storage.toString(),
                Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT,
                Constants.FRAMEWORK_BEGINNING_STARTLEVEL, "3"));
        framework.start();
        context = framework.getBundleContext();
        context.addBundleListener((SynchronousBundleListener) event ->
                bundleEvents.add(event.getType() + " " + event.getBundle().getLocation()));
    }

    @AfterEach
    void stopFramework() throws Exception {
        framework.stop();
        framework.waitForStop(10_000);
    }

    @Test
    void installsStartsAndLeavesUnchangedBytesAlone() throws Exception {
        BundleDeployer deployer = new BundleDeployer(context, JarCheck.NONE);
        Delivery.Jar jar = jar("strategy.jar", bundle("example.strategy", "1.0.0"));

        BundleDeployer.Outcome first = deployer.apply(List.of(jar)).get(0);
        assertThat(first.refused()).isFalse();
        assertThat(first.symbolicName()).isEqualTo("example.strategy");
        assertThat(first.state()).isEqualTo("active");
        Bundle bundle = context.getBundle("ringmaster:configmap/sharding-system/plugins/strategy.jar");
        assertThat(bundle.getState()).isEqualTo(Bundle.ACTIVE);
        bundleEvents.clear();

        deployer.apply(List.of(jar("strategy.jar", bundle("example.strategy", "1.0.0"))));
        assertThat(bundleEvents).as("the same bytes again: no update").isEmpty();
        assertThat(bundle.getState()).isEqualTo(Bundle.ACTIVE);
    }

    @Test
    void updatesChangedBytesInPlace() throws Exception {
        BundleDeployer deployer = new BundleDeployer(context, JarCheck.NONE);
        deployer.apply(List.of(jar("strategy.jar", bundle("example.strategy", "1.0.0"))));
        long id = delivered("strategy.jar").orElseThrow().getBundleId();

        BundleDeployer.Outcome updated = deployer.apply(List.of(jar("strategy.jar", bundle("example.strategy", "2.0.0")))).get(0);

        assertThat(updated.version()).isEqualTo("2.0.0");
        Bundle bundle = delivered("strategy.jar").orElseThrow();
        assertThat(bundle.getBundleId()).isEqualTo(id);
        assertThat(bundle.getVersion()).isEqualTo(new Version(2, 0, 0));
        assertThat(bundle.getState()).isEqualTo(Bundle.ACTIVE);
    }

    @Test
    void anUpdateThatDoesNotResolveIsRefusedAndThePreviousBundleServesOn() throws Exception {
        BundleDeployer deployer = new BundleDeployer(context, JarCheck.NONE);
        deployer.apply(List.of(jar("strategy.jar", bundle("example.strategy", "1.0.0"))));

        byte[] unresolvable = bundle("example.strategy", "2.0.0", Constants.IMPORT_PACKAGE, "no.such.pkg");
        BundleDeployer.Outcome outcome = deployer.apply(List.of(jar("strategy.jar", unresolvable))).get(0);

        assertThat(outcome.refused()).isTrue();
        assertThat(outcome.problem()).contains("no.such.pkg");
        Bundle bundle = delivered("strategy.jar").orElseThrow();
        assertThat(bundle.getVersion()).isEqualTo(new Version(1, 0, 0));
        assertThat(bundle.getState()).isEqualTo(Bundle.ACTIVE);

        bundleEvents.clear();
        assertThat(deployer.apply(List.of(jar("strategy.jar", unresolvable))).get(0).refused()).isTrue();
        assertThat(bundleEvents).as("refused bytes are not tried again").isEmpty();
    }

    @Test
    void aJarThatIsNoBundleIsRefusedAndNothingIsInstalled() throws Exception {
        BundleDeployer deployer = new BundleDeployer(context, JarCheck.NONE);
        int before = context.getBundles().length;

        BundleDeployer.Outcome notAZip = deployer.apply(List.of(jar("broken.jar",
                "not a jar".getBytes(StandardCharsets.UTF_8)))).get(0);

        assertThat(notAZip.refused()).isTrue();
        assertThat(notAZip.state()).isEqualTo("refused");
        assertThat(context.getBundles()).hasSize(before);
    }

    @Test
    void onlyAllowedDigestsRun() throws Exception {
        byte[] allowedBytes = bundle("example.allowed", "1.0.0");
        String allowedSha = Delivery.sha256(allowedBytes);
        BundleDeployer deployer = new BundleDeployer(context, JarCheck.allowedSha256(Set.of(allowedSha)));

        List<BundleDeployer.Outcome> outcomes = deployer.apply(List.of(jar("allowed.jar", allowedBytes),
                jar("other.jar", bundle("example.other", "1.0.0"))));

        assertThat(outcomes.get(0).refused()).isFalse();
        assertThat(outcomes.get(1).problem()).contains("not in allowedSha256");
        assertThat(delivered("other.jar")).isEmpty();
    }

    @Test
    void withTrustedCertificatesOnlySignedUpdatesRunAndTheSignedVersionServesOn(@TempDir Path trust) throws Exception {
        Signers.Signer signer = Signers.selfSigned("plug-in signer");
        JarCheck signed = SignedJars.trusting(Signers.pem(trust.resolve("signer.pem"), signer.certificate()));
        BundleDeployer deployer = new BundleDeployer(context, signed);

        BundleDeployer.Outcome first = deployer.apply(List.of(jar("strategy.jar",
                signer.sign(bundle("example.strategy", "1.0.0"))))).get(0);
        assertThat(first.refused()).as("signed by the trusted signer: %s", first.problem()).isFalse();
        assertThat(first.state()).isEqualTo("active");
        Bundle bundle = delivered("strategy.jar").orElseThrow();
        bundleEvents.clear();

        byte[] signedUpdate = signer.sign(bundle("example.strategy", "2.0.0"));
        Map<String, byte[]> refusedUpdates = Map.of(
                "unsigned", bundle("example.strategy", "2.0.0"),
                "tampered", Signers.rewrite(signedUpdate, entries -> entries.put(RESOURCE, new byte[] {1})),
                "wrongly signed", Signers.selfSigned("plug-in signer").sign(bundle("example.strategy", "2.0.0")));
        refusedUpdates.forEach((how, bytes) -> {
            BundleDeployer.Outcome outcome = deployer.apply(List.of(jar("strategy.jar", bytes))).get(0);
            assertThat(outcome.refused()).as(how).isTrue();
            assertThat(outcome.state()).as(how).isEqualTo("refused");
            assertThat(bundle.getVersion()).as("%s: the signed version serves on", how).isEqualTo(new Version(1, 0, 0));
            assertThat(bundle.getState()).as(how).isEqualTo(Bundle.ACTIVE);
            assertThat(bundleEvents).as("%s: not installed", how).isEmpty();
            assertThat(deployer.apply(List.of(jar("strategy.jar", bytes))).get(0)).as("%s, again: not tried again", how)
                    .isSameAs(outcome);
        });

        assertThat(deployer.apply(List.of(jar("strategy.jar", signedUpdate))).get(0).version()).isEqualTo("2.0.0");
        assertThat(bundle.getVersion()).isEqualTo(new Version(2, 0, 0));
        assertThat(bundle.getState()).isEqualTo(Bundle.ACTIVE);
    }

    @Test
    void withTrustedCertificatesANewUnsignedJarIsNotInstalled(@TempDir Path trust) throws Exception {
        JarCheck signed = SignedJars.trusting(Signers.pem(trust.resolve("signer.pem"),
                Signers.selfSigned("plug-in signer").certificate()));
        BundleDeployer deployer = new BundleDeployer(context, signed);
        int before = context.getBundles().length;

        BundleDeployer.Outcome outcome = deployer.apply(List.of(jar("strategy.jar",
                bundle("example.strategy", "1.0.0")))).get(0);

        assertThat(outcome.problem()).contains("it is not signed");
        assertThat(context.getBundles()).hasSize(before);
    }

    @Test
    void uninstallsWhatIsNoLongerDeliveredAndNothingElse() throws Exception {
        Bundle notDelivered = context.installBundle("test:other", new ByteArrayInputStream(
                bundle("example.notdelivered", "1.0.0")));
        BundleDeployer deployer = new BundleDeployer(context, JarCheck.NONE);
        deployer.apply(List.of(jar("strategy.jar", bundle("example.strategy", "1.0.0"))));

        deployer.apply(List.of());

        assertThat(delivered("strategy.jar")).isEmpty();
        assertThat(notDelivered.getState()).isNotEqualTo(Bundle.UNINSTALLED);
    }

    private Optional<Bundle> delivered(String key) {
        return Arrays.stream(context.getBundles())
                .filter(bundle -> bundle.getLocation().equals("ringmaster:configmap/" + NAMESPACE_AND_NAME + "/" + key))
                .findFirst();
    }

    static Delivery.Jar jar(String key, byte[] bytes) {
        return new Delivery.Jar(new Delivery.Source(NAMESPACE_AND_NAME, key), bytes, Delivery.sha256(bytes));
    }

    /** A bundle with no classes, one resource ({@value #RESOURCE}) and the given extra headers (name, value, …). */
    static byte[] bundle(String symbolicName, String version, String... headers) throws IOException {
        Manifest manifest = new Manifest();
        Attributes attributes = manifest.getMainAttributes();
        attributes.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        attributes.putValue(Constants.BUNDLE_MANIFESTVERSION, "2");
        attributes.putValue(Constants.BUNDLE_SYMBOLICNAME, symbolicName);
        attributes.putValue(Constants.BUNDLE_VERSION, version);
        for (int i = 0; i < headers.length; i += 2) {
            attributes.putValue(headers[i], headers[i + 1]);
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (JarOutputStream jar = new JarOutputStream(bytes, manifest)) {
            jar.putNextEntry(new JarEntry(RESOURCE));
            jar.write((symbolicName + " " + version).getBytes(StandardCharsets.UTF_8));
            jar.closeEntry();
        }
        return bytes.toByteArray();
    }
}
