package dev.ringmaster.webhook.testing;

import dev.ringmaster.webhook.tls.ClientTls;
import dev.ringmaster.webhook.tls.Pem;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.DERBitString;
import org.bouncycastle.asn1.sec.SECObjectIdentifiers;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A test certificate authority (Bouncy Castle, tests only) issuing server certificates for
 * {@code localhost} and {@code 127.0.0.1}, and writing them as cert-manager mounts them.
 */
public final class TestPki {

    /** The private key encodings the server must read. */
    public enum KeyFormat {
        /** {@code BEGIN RSA PRIVATE KEY}: cert-manager's default. */
        RSA_PKCS1,
        /** {@code BEGIN PRIVATE KEY} holding an RSA key. */
        RSA_PKCS8,
        /** {@code BEGIN EC PRIVATE KEY}, the curve inside the key. */
        EC_SEC1,
        /** {@code BEGIN EC PARAMETERS} then {@code BEGIN EC PRIVATE KEY} without the curve. */
        EC_SEC1_SEPARATE_PARAMETERS,
        /** {@code BEGIN PRIVATE KEY} holding an EC key. */
        EC_PKCS8;

        boolean ec() {
            return name().startsWith("EC");
        }
    }

    /** A server certificate and its key pair. */
    public record Issued(X509Certificate certificate, KeyPair keys, KeyFormat format) {

        public BigInteger serial() {
            return certificate.getSerialNumber();
        }

        public String certificatePem() {
            return pem(certificate);
        }

        public String keyPem() {
            return TestPki.keyPem(keys, format);
        }
    }

    private static final AtomicLong SERIALS = new AtomicLong(System.currentTimeMillis());
    private static final SecureRandom RANDOM = new SecureRandom();

    private final KeyPair caKeys;
    private final X509Certificate ca;

    private TestPki() {
        caKeys = keyPair(false);
        Instant now = Instant.now();
        X500Name name = new X500Name("CN=ringmaster test CA");
        try {
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(name, serial(),
                    Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(30))), name,
                    caKeys.getPublic());
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            ca = new JcaX509CertificateConverter().getCertificate(builder.build(signer(caKeys)));
        } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
            throw new IllegalStateException(e);
        }
    }

    public static TestPki create() {
        return new TestPki();
    }

    public X509Certificate ca() {
        return ca;
    }

    /** A server certificate valid from an hour ago for a day. */
    public Issued issue(KeyFormat format) {
        Instant now = Instant.now();
        return issue(format, now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(1)));
    }

    public Issued issue(KeyFormat format, Instant notBefore, Instant notAfter) {
        KeyPair keys = keyPair(format.ec());
        try {
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(ca, serial(), Date.from(notBefore),
                    Date.from(notAfter), new X500Name("CN=localhost"), keys.getPublic());
            builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                    new GeneralName(GeneralName.dNSName, "localhost"),
                    new GeneralName(GeneralName.iPAddress, InetAddress.getLoopbackAddress().getHostAddress())}));
            X509Certificate certificate = new JcaX509CertificateConverter().getCertificate(builder.build(signer(caKeys)));
            return new Issued(certificate, keys, format);
        } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Writes {@code tls.crt} and {@code tls.key} into the directory (created if needed). */
    public static void write(Path directory, Issued issued) {
        write(directory, issued.certificatePem(), issued.keyPem());
    }

    public static void write(Path directory, String certificatePem, String keyPem) {
        try {
            Files.createDirectories(directory);
            Files.writeString(directory.resolve("tls.crt"), certificatePem, StandardCharsets.US_ASCII);
            Files.writeString(directory.resolve("tls.key"), keyPem, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A client TLS context trusting this CA only. */
    public SSLContext clientContext() {
        return ClientTls.trusting(List.of(ca));
    }

    public static String pem(Object object) {
        StringWriter text = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
            writer.writeObject(object);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text.toString();
    }

    static String keyPem(KeyPair keys, KeyFormat format) {
        return switch (format) {
            // Bouncy Castle writes a bare RSA private key in its traditional encoding, PKCS#1
            case RSA_PKCS1 -> pem(keys.getPrivate());
            case EC_SEC1 -> ecWithParameters(keys);
            case RSA_PKCS8, EC_PKCS8 -> Pem.encode("PRIVATE KEY", keys.getPrivate().getEncoded());
            case EC_SEC1_SEPARATE_PARAMETERS -> ecWithSeparateParameters((ECPrivateKey) keys.getPrivate());
        };
    }

    /** SEC1 as Go's x509.MarshalECPrivateKey (cert-manager) and openssl write it: curve and public key inside. */
    private static String ecWithParameters(KeyPair keys) {
        try {
            ECPrivateKey key = (ECPrivateKey) keys.getPrivate();
            DERBitString point = new DERBitString(
                    SubjectPublicKeyInfo.getInstance(keys.getPublic().getEncoded()).getPublicKeyData().getOctets());
            org.bouncycastle.asn1.sec.ECPrivateKey sec1 = new org.bouncycastle.asn1.sec.ECPrivateKey(256, key.getS(),
                    point, SECObjectIdentifiers.secp256r1);
            return Pem.encode("EC PRIVATE KEY", sec1.getEncoded());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String ecWithSeparateParameters(ECPrivateKey key) {
        try {
            ASN1ObjectIdentifier curve = SECObjectIdentifiers.secp256r1;
            // ECPrivateKey ::= SEQUENCE { version 1, privateKey OCTET STRING } without [0] parameters
            org.bouncycastle.asn1.sec.ECPrivateKey sec1 = new org.bouncycastle.asn1.sec.ECPrivateKey(256, key.getS());
            return Pem.encode("EC PARAMETERS", curve.getEncoded()) + Pem.encode("EC PRIVATE KEY", sec1.getEncoded());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static KeyPair keyPair(boolean ec) {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance(ec ? "EC" : "RSA");
            if (ec) {
                generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
            } else {
                generator.initialize(2048, RANDOM);
            }
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static ContentSigner signer(KeyPair keys) throws OperatorCreationException {
        return new JcaContentSignerBuilder("SHA256withRSA").build(keys.getPrivate());
    }

    private static BigInteger serial() {
        return BigInteger.valueOf(SERIALS.incrementAndGet());
    }
}
