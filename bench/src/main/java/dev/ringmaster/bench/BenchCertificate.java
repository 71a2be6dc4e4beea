package dev.ringmaster.bench;

import dev.ringmaster.webhook.tls.CertificateBuilder;
import dev.ringmaster.webhook.tls.ClientTls;
import dev.ringmaster.webhook.tls.Pem;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import javax.net.ssl.SSLContext;

/**
 * A self-signed RSA 2048 certificate for {@code 127.0.0.1}, valid for two days, made with the webhook's
 * {@link CertificateBuilder} (the JDK alone) and written as the PEM pair {@code tls.crt} / {@code tls.key}
 * (PKCS#8) the webhook reads.
 */
public final class BenchCertificate {

    private final Path directory;
    private final X509Certificate certificate;

    private BenchCertificate(Path directory, X509Certificate certificate) {
        this.directory = directory;
        this.certificate = certificate;
    }

    public static BenchCertificate create(Path directory) throws IOException, GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        KeyPair keys = generator.generateKeyPair();
        Instant now = Instant.now();
        X509Certificate certificate = new CertificateBuilder(new SecureRandom()).build(new CertificateBuilder.Spec(
                "127.0.0.1", keys.getPublic(), null, keys.getPrivate(), now.minus(Duration.ofMinutes(5)),
                now.plus(Duration.ofDays(2)), false, List.of(), List.of(InetAddress.getByName("127.0.0.1"))));
        Files.createDirectories(directory);
        Files.writeString(directory.resolve("tls.crt"), Pem.certificates(List.of(certificate)));
        Files.writeString(directory.resolve("tls.key"), Pem.privateKey(keys.getPrivate()));
        return new BenchCertificate(directory, certificate);
    }

    public Path directory() {
        return directory;
    }

    /** A client context trusting this certificate only. */
    public SSLContext clientContext() {
        return ClientTls.trusting(List.of(certificate));
    }
}
