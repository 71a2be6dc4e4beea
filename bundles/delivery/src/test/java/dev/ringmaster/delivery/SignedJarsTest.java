package dev.ringmaster.delivery;

import static dev.ringmaster.delivery.BundleDeployerTest.RESOURCE;
import static dev.ringmaster.delivery.BundleDeployerTest.bundle;
import static dev.ringmaster.delivery.BundleDeployerTest.jar;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ringmaster.delivery.Signers.Signer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.Manifest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The signature check on jars signed here with the JDK's JarSigner, by signers made here. */
class SignedJarsTest {

    @TempDir
    Path folder;

    private Signer trusted;
    private SignedJars check;
    private byte[] unsigned;

    @BeforeEach
    void trustOneSigner() throws Exception {
        trusted = Signers.selfSigned("plug-in signer");
        check = SignedJars.trusting(Signers.pem(folder.resolve("trusted.pem"), trusted.certificate()));
        assertThat(check.problem()).isEmpty();
        unsigned = bundle("example.signed", "1.0.0");
    }

    @Test
    void aJarSignedByTheTrustedSignerPasses() throws Exception {
        assertThat(refusal(trusted.sign(unsigned))).isEmpty();
    }

    @Test
    void anUnsignedJarIsRefused() {
        assertThat(refusal(unsigned)).hasValueSatisfying(reason -> assertThat(reason).contains("it is not signed"));
    }

    @Test
    void aJarWhoseEntryChangedAfterSigningIsRefused() throws Exception {
        byte[] tampered = Signers.rewrite(trusted.sign(unsigned),
                entries -> entries.put(RESOURCE, "changed".getBytes(StandardCharsets.UTF_8)));

        assertThat(refusal(tampered)).hasValueSatisfying(reason -> assertThat(reason)
                .contains("does not match its content").contains(RESOURCE));
    }

    @Test
    void aJarWhoseManifestChangedAfterSigningIsRefused() throws Exception {
        byte[] signed = trusted.sign(unsigned);
        // a header of the bundle changed, e.g. what it imports: the signature covers the manifest
        byte[] tampered = Signers.rewrite(signed, entries -> entries.put("META-INF/MANIFEST.MF",
                withHeader(entries.get("META-INF/MANIFEST.MF"), "Import-Package", "org.example.evil")));

        assertThat(refusal(tampered)).hasValueSatisfying(reason -> assertThat(reason)
                .contains("does not match its content").contains("Manifest main attributes"));
    }

    @Test
    void aJarWithAnEntryAddedAfterSigningIsRefused() throws Exception {
        byte[] partly = Signers.rewrite(trusted.sign(unsigned),
                entries -> entries.put("org/example/Added.class", new byte[] {(byte) 0xCA, (byte) 0xFE}));

        assertThat(refusal(partly)).hasValueSatisfying(reason -> assertThat(reason)
                .contains("1 of its 2 entries are not signed").contains("org/example/Added.class"));
    }

    @Test
    void aJarSignedByAnotherSignerIsRefused() throws Exception {
        Signer stranger = Signers.selfSigned("plug-in signer"); // the same name, another key

        assertThat(refusal(stranger.sign(unsigned))).hasValueSatisfying(reason -> assertThat(reason)
                .contains("signed by \"CN=plug-in signer\", which no trusted certificate vouches for"));
    }

    @Test
    void aSignerWhoseChainNamesTheTrustedCertificateWithoutBeingIssuedByItIsRefused() throws Exception {
        Signer stranger = Signers.selfSigned("stranger");
        Signer pretending = new Signer(stranger.keys(), List.of(stranger.certificate(), trusted.certificate()));

        assertThat(refusal(pretending.sign(unsigned))).hasValueSatisfying(reason -> assertThat(reason)
                .contains("no trusted certificate vouches for"));
    }

    @Test
    void aJarSignedWithACertificateIssuedByATrustedAuthorityPasses() throws Exception {
        Signer authority = Signers.authority("plug-in CA");
        Signer issued = authority.issue("team signer");
        SignedJars trustingTheAuthority = SignedJars.trusting(Signers.pem(folder.resolve("ca.pem"),
                authority.certificate()));

        assertThat(trustingTheAuthority.refusal(jar("plugin.jar", issued.sign(unsigned)))).isEmpty();
        assertThat(trustingTheAuthority.refusal(jar("plugin.jar", Signers.authority("plug-in CA").issue("team signer")
                .sign(unsigned)))).as("issued by another authority of the same name").isPresent();
    }

    @Test
    void aTrustedSignerWhoseCertificateExpiredIsRefused() throws Exception {
        Signer expired = Signers.selfSigned("expired signer", Instant.now().minus(Duration.ofDays(2)),
                Instant.now().minus(Duration.ofDays(1)));
        SignedJars trustingIt = SignedJars.trusting(Signers.pem(folder.resolve("expired.pem"), expired.certificate()));

        assertThat(trustingIt.refusal(jar("plugin.jar", expired.sign(unsigned)))).hasValueSatisfying(reason ->
                assertThat(reason).contains("signed by \"CN=expired signer\""));
    }

    @Test
    void aDirectoryTrustsTheCertificatesOfItsPemAndCrtFiles() throws Exception {
        Signer second = Signers.selfSigned("second signer");
        Signer ignored = Signers.selfSigned("ignored signer");
        Path directory = Files.createDirectory(folder.resolve("trust"));
        Signers.pem(directory.resolve("first.pem"), trusted.certificate());
        Signers.pem(directory.resolve("second.crt"), second.certificate());
        Signers.pem(directory.resolve("notes.txt"), ignored.certificate());
        SignedJars trustingBoth = SignedJars.trusting(directory);

        assertThat(trustingBoth.refusal(jar("a.jar", trusted.sign(unsigned)))).isEmpty();
        assertThat(trustingBoth.refusal(jar("b.jar", second.sign(unsigned)))).isEmpty();
        assertThat(trustingBoth.refusal(jar("c.jar", ignored.sign(unsigned)))).isPresent();
        assertThat(trustingBoth.describe()).startsWith("2 trusted certificate(s) from " + directory);
    }

    @Test
    void trustedCertificatesThatCannotBeReadRefuseEveryJar() throws Exception {
        Path missing = folder.resolve("missing.pem");
        Path garbage = Files.writeString(folder.resolve("garbage.pem"), "not a certificate");
        Path empty = Files.createDirectory(folder.resolve("empty"));
        byte[] signed = trusted.sign(unsigned);

        for (Path path : List.of(missing, garbage, empty)) {
            SignedJars broken = SignedJars.trusting(path);
            assertThat(broken.problem()).as("%s", path).hasValueSatisfying(problem -> assertThat(problem)
                    .startsWith(path.toString()));
            assertThat(broken.refusal(jar("plugin.jar", signed))).as("%s", path).hasValueSatisfying(reason ->
                    assertThat(reason).contains("no jar is accepted while the trusted certificates")
                            .contains(path.toString()));
        }
    }

    @Test
    void bytesThatAreNoJarAreRefused() {
        assertThat(refusal("not a jar".getBytes(StandardCharsets.UTF_8))).hasValueSatisfying(reason ->
                assertThat(reason).contains("not a jar"));
    }

    @Test
    void bothChecksMustPassWhenBothAreConfigured() throws Exception {
        byte[] signed = trusted.sign(unsigned);
        JarCheck listed = JarCheck.allowedSha256(Set.of(Delivery.sha256(signed), Delivery.sha256(unsigned)));

        assertThat(listed.and(check).refusal(jar("signed.jar", signed))).isEmpty();
        assertThat(listed.and(check).refusal(jar("unsigned.jar", unsigned))).hasValueSatisfying(reason ->
                assertThat(reason).contains("not signed"));
        byte[] signedToo = trusted.sign(bundle("example.other", "1.0.0"));
        assertThat(listed.and(check).refusal(jar("other.jar", signedToo))).hasValueSatisfying(reason ->
                assertThat(reason).contains("not in allowedSha256"));
    }

    @Test
    void signatureFilesAreTheJdksOnly() {
        assertThat(List.of("META-INF/MANIFEST.MF", "META-INF/SIGNER.SF", "META-INF/signer.ec", "META-INF/A.RSA",
                "META-INF/A.DSA", "META-INF/SIG-X.Y")).allMatch(SignedJars::signatureFile);
        assertThat(List.of("META-INF/services/x.SF", "META-INF/maven/pom.xml", "OSGI-INF/a.xml", "x/META-INF/A.SF",
                "META-INF/notes.txt")).noneMatch(SignedJars::signatureFile);
    }

    private Optional<String> refusal(byte[] bytes) {
        return check.refusal(jar("plugin.jar", bytes));
    }

    private static byte[] withHeader(byte[] manifestBytes, String name, String value) {
        try {
            Manifest manifest = new Manifest(new ByteArrayInputStream(manifestBytes));
            manifest.getMainAttributes().put(new Attributes.Name(name), value);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            manifest.write(out);
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
