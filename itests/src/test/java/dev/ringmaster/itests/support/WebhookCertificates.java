package dev.ringmaster.itests.support;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * The webhook's test certificates, made in the test JVM before the framework boots ({@link dev.ringmaster.itests.WebhookIT}'s
 * {@code @Configuration}) with Bouncy Castle, which the test class path has through the fabric8 mock
 * server and the framework never sees. Writes a CA ({@code ca.crt}) and two server certificates for
 * {@code 127.0.0.1}, each a directory with {@code tls.crt} and a PKCS#1 {@code tls.key} as cert-manager
 * writes them: {@value #FIRST} and {@value #SECOND}. The probe reads them with the JDK alone.
 */
public final class WebhookCertificates {

    public static final String CA = "ca.crt";
    public static final String FIRST = "first";
    public static final String SECOND = "second";

    private WebhookCertificates() {
    }

    /** Writes the files into {@code directory} (created) and returns it. */
    public static Path write(Path directory) {
        try {
            KeyPair caKeys = rsa();
            X500Name caName = new X500Name("CN=ringmaster itests CA");
            Instant now = Instant.now();
            X509v3CertificateBuilder ca = new JcaX509v3CertificateBuilder(caName, BigInteger.ONE,
                    Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(2))), caName,
                    caKeys.getPublic());
            ca.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            Files.createDirectories(directory);
            Files.writeString(directory.resolve(CA), pem(certificate(ca, caKeys)), StandardCharsets.US_ASCII);
            long serial = 2;
            for (String name : new String[] {FIRST, SECOND}) {
                KeyPair keys = rsa();
                X509v3CertificateBuilder server = new JcaX509v3CertificateBuilder(caName, BigInteger.valueOf(serial++),
                        Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(1))),
                        new X500Name("CN=127.0.0.1"), keys.getPublic());
                server.addExtension(Extension.subjectAlternativeName, false,
                        new GeneralNames(new GeneralName(GeneralName.iPAddress, "127.0.0.1")));
                Path files = Files.createDirectories(directory.resolve(name));
                Files.writeString(files.resolve("tls.crt"), pem(certificate(server, caKeys)), StandardCharsets.US_ASCII);
                Files.writeString(files.resolve("tls.key"), pem(keys.getPrivate()), StandardCharsets.US_ASCII);
            }
            return directory;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static X509Certificate certificate(X509v3CertificateBuilder builder, KeyPair issuer)
            throws GeneralSecurityException, OperatorCreationException {
        return new JcaX509CertificateConverter().getCertificate(
                builder.build(new JcaContentSignerBuilder("SHA256withRSA").build(issuer.getPrivate())));
    }

    private static KeyPair rsa() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        return generator.generateKeyPair();
    }

    /** PEM as Bouncy Castle writes it: an RSA private key as PKCS#1 ({@code BEGIN RSA PRIVATE KEY}). */
    private static String pem(Object object) throws IOException {
        StringWriter text = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
            writer.writeObject(object);
        }
        return text.toString();
    }
}
