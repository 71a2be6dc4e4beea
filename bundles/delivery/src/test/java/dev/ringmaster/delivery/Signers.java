package dev.ringmaster.delivery;

import dev.ringmaster.webhook.tls.CertificateBuilder;
import dev.ringmaster.webhook.tls.Pem;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;
import jdk.security.jarsigner.JarSigner;

/**
 * Test signers: EC keys and certificates made here ({@link CertificateBuilder} of the webhook bundle),
 * jars signed with the JDK's public signing API ({@link JarSigner}, what the {@code jarsigner} tool
 * runs), and signed jars changed afterwards the ways an attacker would.
 */
final class Signers {

    private static final CertificateBuilder CERTIFICATES = new CertificateBuilder(new SecureRandom());

    /** A key and its certificate chain, the signer's certificate first. */
    record Signer(KeyPair keys, List<X509Certificate> chain) {

        X509Certificate certificate() {
            return chain.get(0);
        }

        /** The jar signed by this signer, its chain in the signature block. */
        byte[] sign(byte[] jar) throws IOException, GeneralSecurityException {
            Path unsigned = Files.createTempFile("unsigned-", ".jar");
            try {
                Files.write(unsigned, jar);
                JarSigner signer = new JarSigner.Builder(keys.getPrivate(),
                        CertificateFactory.getInstance("X.509").generateCertPath(chain))
                        .digestAlgorithm("SHA-256").signerName("SIGNER").build();
                ByteArrayOutputStream signed = new ByteArrayOutputStream();
                try (ZipFile zip = new ZipFile(unsigned.toFile())) {
                    signer.sign(zip, signed);
                }
                return signed.toByteArray();
            } finally {
                Files.delete(unsigned);
            }
        }

        /** A certificate for a new key issued by this signer (a CA), valid now. */
        Signer issue(String subject) throws GeneralSecurityException {
            KeyPair issued = keys();
            List<X509Certificate> issuedChain = new ArrayList<>();
            issuedChain.add(CERTIFICATES.build(new CertificateBuilder.Spec(subject, issued.getPublic(), certificate(),
                    keys.getPrivate(), Instant.now().minus(Duration.ofHours(1)), Instant.now().plus(Duration.ofDays(1)),
                    false, List.of("plugins.example"), List.of())));
            issuedChain.addAll(chain);
            return new Signer(issued, issuedChain);
        }
    }

    private Signers() {
    }

    /** A self-signed end-entity certificate valid between the two instants. */
    static Signer selfSigned(String subject, Instant notBefore, Instant notAfter) throws GeneralSecurityException {
        KeyPair keys = keys();
        return new Signer(keys, List.of(CERTIFICATES.build(new CertificateBuilder.Spec(subject, keys.getPublic(), null,
                keys.getPrivate(), notBefore, notAfter, false, List.of("plugins.example"), List.of()))));
    }

    static Signer selfSigned(String subject) throws GeneralSecurityException {
        return selfSigned(subject, Instant.now().minus(Duration.ofHours(1)), Instant.now().plus(Duration.ofDays(1)));
    }

    /** A self-signed CA. */
    static Signer authority(String subject) throws GeneralSecurityException {
        KeyPair keys = keys();
        return new Signer(keys, List.of(CERTIFICATES.build(new CertificateBuilder.Spec(subject, keys.getPublic(), null,
                keys.getPrivate(), Instant.now().minus(Duration.ofHours(1)), Instant.now().plus(Duration.ofDays(1)),
                true, List.of(), List.of()))));
    }

    /** Writes the certificates as one PEM file. */
    static Path pem(Path file, X509Certificate... certificates) throws IOException {
        return Files.writeString(file, Pem.certificates(List.of(certificates)), StandardCharsets.US_ASCII);
    }

    /**
     * The jar with its entries, in order, changed by {@code change} (entry name to content; the signature
     * files stay as they were unless changed).
     */
    static byte[] rewrite(byte[] jar, Consumer<Map<String, byte[]>> change) {
        Map<String, byte[]> entries = new LinkedHashMap<>();
        try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(jar))) {
            for (ZipEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
                entries.put(entry.getName(), in.readAllBytes());
            }
            change.accept(entries);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (ZipOutputStream zip = new ZipOutputStream(out)) {
                for (Map.Entry<String, byte[]> entry : entries.entrySet()) {
                    zip.putNextEntry(new ZipEntry(entry.getKey()));
                    zip.write(entry.getValue());
                    zip.closeEntry();
                }
            }
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static KeyPair keys() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        return generator.generateKeyPair();
    }
}
