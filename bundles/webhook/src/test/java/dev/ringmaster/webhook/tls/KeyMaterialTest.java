package dev.ringmaster.webhook.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ringmaster.webhook.testing.TestPki;
import dev.ringmaster.webhook.testing.TestPki.Issued;
import dev.ringmaster.webhook.testing.TestPki.KeyFormat;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.interfaces.ECPrivateKey;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class KeyMaterialTest {

    private static TestPki pki;

    @TempDir
    Path directory;

    @BeforeAll
    static void authority() {
        pki = TestPki.create();
    }

    @ParameterizedTest
    @EnumSource(KeyFormat.class)
    void readsEveryKeyEncodingCertManagerAndOpensslWrite(KeyFormat format) throws Exception {
        Issued issued = pki.issue(format);
        assertThat(issued.keyPem()).startsWith(switch (format) {
            case RSA_PKCS1 -> "-----BEGIN RSA PRIVATE KEY-----";
            case EC_SEC1 -> "-----BEGIN EC PRIVATE KEY-----";
            case EC_SEC1_SEPARATE_PARAMETERS -> "-----BEGIN EC PARAMETERS-----";
            case RSA_PKCS8, EC_PKCS8 -> "-----BEGIN PRIVATE KEY-----";
        });
        TestPki.write(directory, issued);

        KeyMaterial material = KeyMaterial.load(directory.resolve("tls.crt"), directory.resolve("tls.key"), Instant.now());

        assertThat(material.certificate()).isEqualTo(issued.certificate());
        KeyStore store = material.keyStore();
        PrivateKey key = (PrivateKey) store.getKey(KeyMaterial.ALIAS, material.keyStorePassword().toCharArray());
        assertSameKey(key, issued.keys().getPrivate());
        assertThat(store.getCertificateChain(KeyMaterial.ALIAS)).containsExactly(issued.certificate());
        assertThat(material.notAfter()).isEqualTo(issued.certificate().getNotAfter().toInstant());
    }

    @Test
    void aSec1KeyNamingNoCurveIsReadOnTheCertificatesCurve() throws Exception {
        Issued issued = pki.issue(KeyFormat.EC_PKCS8);
        // Bouncy Castle writes the JDK's key as the SEC1 structure inside its PKCS#8 encoding: no curve
        String bare = TestPki.pem(issued.keys().getPrivate());
        assertThat(bare).startsWith("-----BEGIN EC PRIVATE KEY-----");

        KeyMaterial material = KeyMaterial.parse(issued.certificatePem().getBytes(StandardCharsets.US_ASCII), "tls.crt",
                bare.getBytes(StandardCharsets.US_ASCII), "tls.key", Instant.now());

        PrivateKey key = (PrivateKey) material.keyStore().getKey(KeyMaterial.ALIAS,
                material.keyStorePassword().toCharArray());
        assertSameKey(key, issued.keys().getPrivate());
        assertRefused(pki.issue(KeyFormat.RSA_PKCS1).certificatePem(), bare, "the EC key names no curve");
    }

    @Test
    void keepsTheWholeChainServerCertificateFirst() throws Exception {
        Issued issued = pki.issue(KeyFormat.RSA_PKCS1);
        TestPki.write(directory, issued.certificatePem() + TestPki.pem(pki.ca()), issued.keyPem());

        KeyMaterial material = KeyMaterial.load(directory.resolve("tls.crt"), directory.resolve("tls.key"), Instant.now());

        Certificate[] chain = material.keyStore().getCertificateChain(KeyMaterial.ALIAS);
        assertThat(chain).containsExactly(issued.certificate(), pki.ca());
    }

    @Test
    void aKeyOfAnotherCertificateIsRefused() {
        Issued first = pki.issue(KeyFormat.RSA_PKCS1);
        Issued second = pki.issue(KeyFormat.RSA_PKCS1);
        assertRefused(first.certificatePem(), second.keyPem(), "does not belong to the certificate");
        Issued ec = pki.issue(KeyFormat.EC_SEC1);
        Issued otherEc = pki.issue(KeyFormat.EC_SEC1);
        assertRefused(ec.certificatePem(), otherEc.keyPem(), "does not belong to the certificate");
        assertRefused(ec.certificatePem(), first.keyPem(), "does not belong to the certificate");
        assertRefused(first.certificatePem(), ec.keyPem(), "does not belong to the certificate");
    }

    @Test
    void anExpiredOrNotYetValidCertificateIsRefusedWithItsDates() {
        Instant now = Instant.now();
        Issued expired = pki.issue(KeyFormat.EC_PKCS8, now.minus(Duration.ofDays(2)), now.minus(Duration.ofDays(1)));
        assertRefused(expired.certificatePem(), expired.keyPem(),
                "expired at " + expired.certificate().getNotAfter().toInstant());
        Issued future = pki.issue(KeyFormat.EC_PKCS8, now.plus(Duration.ofDays(1)), now.plus(Duration.ofDays(2)));
        assertRefused(future.certificatePem(), future.keyPem(),
                "is not valid before " + future.certificate().getNotBefore().toInstant());
    }

    @Test
    void brokenFilesAreRefusedWithTheFileAndTheReason() {
        Issued issued = pki.issue(KeyFormat.RSA_PKCS1);
        assertRefused("not a certificate", issued.keyPem(), "tls.crt: no PEM certificate");
        assertRefused(issued.certificatePem(), "", "tls.key: no PEM private key");
        assertRefused(Pem.encode("CERTIFICATE", new byte[] {1, 2, 3}), issued.keyPem(),
                "tls.crt: certificate 1 cannot be read");
        assertRefused(issued.certificatePem(), Pem.encode("RSA PRIVATE KEY", new byte[] {0x30, 0x03, 1, 2, 3}),
                "tls.key: the RSA PRIVATE KEY cannot be read");
        assertRefused(issued.certificatePem(), "-----BEGIN PRIVATE KEY-----\n!!!!\n-----END PRIVATE KEY-----\n",
                "tls.key: the PRIVATE KEY block is not valid base64");
        assertRefused(issued.certificatePem(), Pem.encode("ENCRYPTED PRIVATE KEY", new byte[] {0x30, 0}),
                "tls.key: the private key is encrypted");
        assertRefused(issued.certificatePem(), "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n"
                + "DEK-Info: AES-128-CBC,00\n\nAAAA\n-----END RSA PRIVATE KEY-----\n", "is encrypted");
        assertRefused(issued.certificatePem(), issued.keyPem() + issued.keyPem(), "2 private keys");
    }

    @Test
    void missingFilesAreNamed() throws Exception {
        Path certificate = directory.resolve("tls.crt");
        assertThatThrownBy(() -> KeyMaterial.load(certificate, directory.resolve("tls.key"), Instant.now()))
                .isInstanceOf(KeyMaterialException.class).hasMessage(certificate + ": no such file");
    }

    /** The same private value (encodings differ in optional parts, e.g. SEC1's embedded public key). */
    private static void assertSameKey(PrivateKey actual, PrivateKey expected) {
        if (expected instanceof ECPrivateKey ec) {
            assertThat(((ECPrivateKey) actual).getS()).isEqualTo(ec.getS());
        } else {
            assertThat(actual.getEncoded()).isEqualTo(expected.getEncoded());
        }
    }

    private void assertRefused(String certificatePem, String keyPem, String message) {
        assertThatThrownBy(() -> KeyMaterial.parse(certificatePem.getBytes(StandardCharsets.US_ASCII), "tls.crt",
                keyPem.getBytes(StandardCharsets.US_ASCII), "tls.key", Instant.now()))
                .isInstanceOf(KeyMaterialException.class)
                .hasMessageContaining(message);
    }

    @Test
    void derRewrapsPkcs1AsPkcs8ThatTheJdkReads() throws Exception {
        Issued issued = pki.issue(KeyFormat.RSA_PKCS8);
        byte[] pkcs8 = issued.keys().getPrivate().getEncoded();
        // the PKCS#1 structure is the OCTET STRING at the end of the JDK's own PKCS#8 encoding
        Der.Reader info = new Der.Reader(pkcs8).next(Der.SEQUENCE, "info").children();
        info.next();
        info.next();
        byte[] pkcs1 = info.next(Der.OCTET_STRING, "key").content();
        assertThat(PrivateKeys.rsaAsPkcs8(pkcs1)).isEqualTo(pkcs8);
    }
}
